/**
 * How long a browser may keep each file of the built site: a year, immutable, for content-hashed
 * files and `/static/`; revalidation for HTML and page data
 * (https://www.gatsbyjs.com/docs/how-to/previews-deploys-hosting/caching/). The local stack sends
 * it and `_headers` tells static hosts.
 */

export const IMMUTABLE = "public, max-age=31536000, immutable";
export const REVALIDATE = "no-cache";

/** Webpack's content hash in a file name: `app-3855b1364636878916d1.js`, `styles.394ff6693c0233675c7b.css`. */
const HASHED_ASSET = /[-.][0-9a-f]{16,}\.(?:js|css)$/;

export const cacheControlFor = (urlPath: string): string =>
  urlPath.startsWith("/static/") || HASHED_ASSET.test(urlPath) ? IMMUTABLE : REVALIDATE;
