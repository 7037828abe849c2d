/**
 * `public/_headers`, written by `gatsby build` (gatsby-node.ts): the security headers and the
 * long cache of content-hashed files that the local stack sends, in the file format Netlify and
 * Cloudflare Pages read (https://docs.netlify.com/routing/headers/,
 * https://developers.cloudflare.com/pages/configuration/headers/). Other hosts: copy the values
 * into their settings.
 */
import { contentSecurityPolicy, securityHeaders, sitePaths } from "./security-headers.ts";
import { cacheControlFor } from "./cache-control.ts";

export const HOST_HEADERS_FILE = "_headers";

export function hostHeaders(publicDir: string, connectOrigins: string[]): string {
  const security = {
    ...securityHeaders(contentSecurityPolicy({ publicDir, connectOrigins })),
    // Static hosts serve the site over HTTPS: browsers should never try plain HTTP again. Not
    // sent by the local stack, which serves http://localhost. No includeSubDomains or preload:
    // other hosts under the brand's domain are not ours to force onto HTTPS.
    "Strict-Transport-Security": "max-age=31536000",
  };
  // Both hosts join the values of a header set by two matching rules, so Cache-Control is only
  // set for the long-lived files; everything else keeps the host's own revalidating default.
  const immutable = cacheControlFor("/static/");
  const hashed = sitePaths(publicDir)
    .filter((urlPath) => !urlPath.startsWith("/static/") && cacheControlFor(urlPath) === immutable)
    .sort();
  const rule = (pattern: string, headers: Record<string, string>) =>
    [pattern, ...Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`)].join("\n");
  return [
    "# Written by `gatsby build` (site-headers/host-headers.ts): the headers the local stack sends.",
    rule("/*", security),
    rule("/static/*", { "Cache-Control": immutable }),
    ...hashed.map((urlPath) => rule(urlPath, { "Cache-Control": immutable })),
    "",
  ].join("\n");
}
