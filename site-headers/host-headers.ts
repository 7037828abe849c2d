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
import { cacheControlFor, IMMUTABLE_FOLDERS } from "./cache-control.ts";

export const HOST_HEADERS_FILE = "_headers";

export function hostHeaders(publicDir: string, connectOrigins: string[]): string {
  const security: Record<string, string> = {
    ...securityHeaders(contentSecurityPolicy({ publicDir, connectOrigins })),
    // Static hosts serve the site over HTTPS: browsers should never try plain HTTP again. Not
    // sent by the local stack, which serves http://localhost. No includeSubDomains or preload:
    // other hosts under the brand's domain are not ours to force onto HTTPS.
    "Strict-Transport-Security": "max-age=31536000",
  };
  // Both hosts join the values of a header set by two matching rules, so Cache-Control is only
  // set for the long-lived files; everything else keeps the host's own revalidating default.
  const immutable = cacheControlFor("/static/");
  const inFolder = (urlPath: string) => IMMUTABLE_FOLDERS.some((folder) => urlPath.startsWith(folder));
  const hashed = sitePaths(publicDir)
    .filter((urlPath) => !inFolder(urlPath) && cacheControlFor(urlPath) === immutable)
    .sort();
  const rule = (pattern: string, headers: Record<string, string>, detach: string[] = []) =>
    [
      pattern,
      ...detach.map((name) => `  ! ${name}`),
      ...Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`),
    ].join("\n");
  // The CMS needs a looser policy than the site. "! Name" (Cloudflare Pages) drops the value the
  // `/*` rule set, so /admin/ answers with its own policy alone instead of both (which would apply
  // the stricter). Netlify has no such syntax: see README, "Deploying".
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
  return [
    "# Written by `gatsby build` (site-headers/host-headers.ts): the headers the local stack sends.",
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
    ...IMMUTABLE_FOLDERS.map((folder) => rule(`${folder}*`, { "Cache-Control": immutable })),
    ...hashed.map((urlPath) => rule(urlPath, { "Cache-Control": immutable })),
    "",
  ].join("\n");
}

/** Writes `_headers` into a built site, once its pages are there (their inline scripts are hashed). */
export async function writeHostHeaders(
  publicDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<void> {
  await writeFile(path.join(publicDir, HOST_HEADERS_FILE), hostHeaders(publicDir, siteConnectOrigins(env)));
}
