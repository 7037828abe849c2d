/**
 * `public/_headers`, written by `gatsby build` (gatsby-node.ts): the security headers and the
 * long cache of content-hashed files that the local stack sends, in the file format Netlify and
 * Cloudflare Pages read (https://docs.netlify.com/routing/headers/,
 * https://developers.cloudflare.com/pages/configuration/headers/). Other hosts: copy the values
 * into their settings.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import {
  ADMIN_PATH,
  adminSecurityHeaders,
  contentSecurityPolicy,
  SIGN_IN_PAGES,
  signInPageSecurityHeaders,
  securityHeaders,
  siteConnectOrigins,
  sitePaths,
} from "./security-headers.ts";
import {
  cacheControlFor,
  hashedFilePattern,
  IMMUTABLE,
  IMMUTABLE_FOLDERS,
  REVALIDATE,
} from "./cache-control.ts";

export const HOST_HEADERS_FILE = "_headers";

/**
 * What Cloudflare Pages reads of `_headers`: 100 rules, and lines of at most 2,000 characters; the
 * rest it drops with only a warning in the deploy's log
 * (https://developers.cloudflare.com/pages/configuration/headers/), so the build stops instead.
 */
export const HOST_HEADERS_LIMITS = { rules: 100, lineLength: 2_000 };

/**
 * A `_headers` rule's pattern as Cloudflare Pages matches it against a path: a splat `*` is any run
 * of characters, `/` included; a placeholder `:name` is one segment; the rest is literal, and the
 * whole path must match. Netlify reads one `*` inside a segment alike, but ignoring case: so does
 * this, so a pattern found to reach no other file reaches none on either host.
 */
export function hostPatternRegExp(pattern: string): RegExp {
  const literal = (part: string) =>
    part.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&").replace(/:[A-Za-z]\w*/g, "[^/]+");
  return new RegExp(`^${pattern.split("*").map(literal).join(".*")}$`, "i");
}

/**
 * The patterns of the long cache: a folder's (`/static/*`) for the folders whose every file is
 * hashed, and elsewhere one per kind of hashed file (`/app-*.js`), so their number follows the
 * kinds of files the build writes, not the number of pages. A pattern that would also reach a file
 * that revalidates (a splat crosses folders) gives way to the paths of its own files.
 */
function longLivedPatterns(paths: string[]): string[] {
  const revalidating = paths.filter((urlPath) => cacheControlFor(urlPath) === REVALIDATE);
  const byPattern = new Map<string, string[]>();
  for (const urlPath of paths) {
    const pattern = hashedFilePattern(urlPath);
    if (!pattern || IMMUTABLE_FOLDERS.some((folder) => urlPath.startsWith(folder))) continue;
    byPattern.set(pattern, [...(byPattern.get(pattern) ?? []), urlPath]);
  }
  const hashed = [...byPattern].flatMap(([pattern, files]) => {
    const matches = hostPatternRegExp(pattern);
    return revalidating.some((urlPath) => matches.test(urlPath)) ? files : [pattern];
  });
  return [...IMMUTABLE_FOLDERS.map((folder) => `${folder}*`), ...hashed.sort()];
}

/**
 * The file, or an error saying what would not fit in what the hosts read: too many rules (the
 * long cache's are the ones that can grow), or a line too long (a policy of many hashes).
 */
function withinHostLimits(rules: string[], longLived: string[]): string {
  const { rules: most, lineLength } = HOST_HEADERS_LIMITS;
  if (rules.length > most) {
    throw new Error(
      `public/${HOST_HEADERS_FILE} would hold ${rules.length} rules, and Cloudflare Pages applies only ` +
        `the first ${most}: ${longLived.length} of them give the long cache to content-hashed files ` +
        `(${longLived.slice(0, 6).join(", ")}, ...). Name such files so that one pattern covers them, ` +
        "or put them in a folder of IMMUTABLE_FOLDERS (site-headers/cache-control.ts).",
    );
  }
  for (const block of rules) {
    const [pattern, ...lines] = block.split("\n");
    const long = [pattern, ...lines].find((line) => line.length > lineLength);
    if (long) {
      throw new Error(
        `public/${HOST_HEADERS_FILE} would hold a line of ${long.length} characters in the rule for ` +
          `${pattern}, and Cloudflare Pages drops a line over ${lineLength.toLocaleString("en-US")}: ` +
          `${long.trim().slice(0, 80)}...`,
      );
    }
  }
  return [
    "# Written by `gatsby build` (site-headers/host-headers.ts): the headers the local stack sends.",
    ...rules,
    "",
  ].join("\n");
}

export function hostHeaders(publicDir: string, connectOrigins: string[]): string {
  const security: Record<string, string> = {
    ...securityHeaders(contentSecurityPolicy({ publicDir, connectOrigins })),
    // Static hosts serve the site over HTTPS: browsers should never try plain HTTP again. Not
    // sent by the local stack, which serves http://localhost. No includeSubDomains or preload:
    // other hosts under the brand's domain are not ours to force onto HTTPS.
    "Strict-Transport-Security": "max-age=31536000",
  };
  const rule = (pattern: string, headers: Record<string, string>, detach: string[] = []) =>
    [
      pattern,
      ...detach.map((name) => `  ! ${name}`),
      ...Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`),
    ].join("\n");
  // The CMS needs a looser policy than the site. "! Name" (Cloudflare Pages) drops the value the
  // `/*` rule set, so /admin/ answers with its own policy alone instead of both (which would apply
  // the stricter). Netlify has no such syntax: see docs/deploying.md.
  const admin = adminSecurityHeaders();
  const adminOnly = Object.fromEntries(
    Object.entries(admin).filter(([name, value]) => security[name] !== value),
  );
  // The sign-in pages keep the popup's opener and call the functions: their own values, the
  // others' detached.
  const signIn = signInPageSecurityHeaders(connectOrigins);
  const signInOnly = Object.fromEntries(
    Object.entries(signIn).filter(([name, value]) => (admin[name] ?? security[name]) !== value),
  );
  // Both hosts join the values of a header set by two matching rules, so Cache-Control is only
  // set for the long-lived files; everything else keeps the host's own revalidating default.
  const longLived = longLivedPatterns(sitePaths(publicDir));
  return withinHostLimits(
    [
      rule("/*", security),
      rule(
        `${ADMIN_PATH}*`,
        adminOnly,
        Object.keys(adminOnly).filter((name) => name in security),
      ),
      ...SIGN_IN_PAGES.map((page) =>
        rule(
          `${page}*`,
          signInOnly,
          Object.keys(signInOnly).filter((name) => name in security || name in admin),
        ),
      ),
      ...longLived.map((pattern) => rule(pattern, { "Cache-Control": IMMUTABLE })),
    ],
    longLived,
  );
}

/**
 * Writes `_headers` into a built site once every file is there: the pages (their inline scripts
 * are hashed) and the hashed files (each kind gets its rule).
 */
export async function writeHostHeaders(
  publicDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<void> {
  await writeFile(path.join(publicDir, HOST_HEADERS_FILE), hostHeaders(publicDir, siteConnectOrigins(env)));
}
