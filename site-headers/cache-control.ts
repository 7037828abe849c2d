/**
 * How long a browser may keep each file of the built site: a year, immutable, for content-hashed
 * files, `/static/` and the search index's content-hashed parts; revalidation for HTML, page data
 * and the search's entry files (https://www.gatsbyjs.com/docs/how-to/previews-deploys-hosting/caching/).
 * The local stack sends it and `_headers` tells static hosts.
 */

export const IMMUTABLE = "public, max-age=31536000, immutable";
export const REVALIDATE = "no-cache";

/**
 * Folders whose every file is named by its content: Gatsby's `/static/`, and the parts of the
 * archive's search index (build/search-index.ts) that Pagefind names by a hash of their bytes
 * (`/pagefind/fragment/en_1acd887.pf_fragment`), reached only through Pagefind's entry file, which
 * revalidates with its script and WebAssembly. A reader's second search, or a later visit,
 * then takes the index parts and excerpts it already has without asking again.
 */
export const IMMUTABLE_FOLDERS = ["/static/", "/pagefind/index/", "/pagefind/fragment/", "/pagefind/filter/"];

/**
 * The content hash in a file's name, wherever the file is: webpack's (`app-3855b1364636878916d1.js`,
 * `styles.394ff6693c0233675c7b.css`) and the search's metadata's
 * (`/pagefind/pagefind.en_13ab3ad0b2.pf_meta`).
 */
const HASH_IN_NAME = [
  /(?<=[-.])[0-9a-f]{16,}(?=\.(?:js|css)$)/,
  /(?<=^\/pagefind\/pagefind\.)[\w-]+(?=\.pf_meta$)/,
];

export const cacheControlFor = (urlPath: string): string =>
  IMMUTABLE_FOLDERS.some((folder) => urlPath.startsWith(folder)) ||
  HASH_IN_NAME.some((hash) => hash.test(urlPath))
    ? IMMUTABLE
    : REVALIDATE;

/**
 * A content-hashed file's path with a splat in the hash's place (`/app-*.js`,
 * `/pagefind/pagefind.*.pf_meta`): the static hosts' pattern for that file whatever its content,
 * so `_headers` needs one rule per kind of file, not per build of it. Null for a file without a
 * hash in its name.
 */
export function hashedFilePattern(urlPath: string): string | null {
  const hash = HASH_IN_NAME.find((each) => each.test(urlPath));
  return hash ? urlPath.replace(hash, "*") : null;
}
