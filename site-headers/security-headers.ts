/**
 * The site's security policy: the headers for every answer, with a Content-Security-Policy the built site passes:
 * Gatsby inlines a few scripts (gatsby-plugin-image's loading helpers, the script loader, the
 * compilation hash), so their SHA-256 hashes are computed from the built HTML at start instead of
 * allowing every inline script. Inline styles stay allowed: Gatsby inlines the page's CSS.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { CMS_SIGN_IN_PATH, CMS_SIGNED_IN_PATH } from "../supabase/functions/_shared/contract/cms-sign-in.ts";
import { readVariable } from "../supabase/functions/_shared/contract/variables.ts";

/** Inline scripts (no `src`): their attributes and their exact text, which is what the browser hashes. */
const INLINE_SCRIPT = /<script(?![^>]*\ssrc=)([^>]*)>([\s\S]*?)<\/script>/gi;

/**
 * A script the browser runs: no `type`, a JavaScript MIME type or `module`. Data blocks
 * (`application/ld+json`, `application/json`) are never run, so the CSP does not cover them.
 */
function runs(attributes: string): boolean {
  const type = /\stype\s*=\s*["']?([^"'\s>]*)/i.exec(attributes)?.[1].trim().toLowerCase() ?? "";
  return type === "" || type === "module" || /^(text|application)\/(java|ecma)script$/.test(type);
}

/** Every file under `dir` as a URL path (`/about/index.html`). Symbolic links are not followed. */
export function sitePaths(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const urlPath = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) return sitePaths(path.join(dir, entry.name), urlPath);
    return entry.isFile() ? [urlPath] : [];
  });
}

/** The hashes of every inline script in the build; none when the site is not built. */
export function inlineScriptHashes(publicDir: string): string[] {
  const hashes = new Set<string>();
  if (!existsSync(publicDir)) return [];
  for (const urlPath of sitePaths(publicDir).filter((name) => name.endsWith(".html"))) {
    for (const [, attributes, text] of readFileSync(path.join(publicDir, urlPath), "utf8").matchAll(
      INLINE_SCRIPT,
    )) {
      if (text.length === 0 || !runs(attributes)) continue;
      hashes.add(`'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`);
    }
  }
  return [...hashes].sort();
}

/**
 * The origins the page calls besides its own: the Supabase project of `GATSBY_SUPABASE_URL`, the
 * same variable the build bakes into the page.
 */
export function siteConnectOrigins(env: Record<string, string | undefined>): string[] {
  const raw = readVariable(env, "GATSBY_SUPABASE_URL");
  if (!raw) return [];
  try {
    return [new URL(raw).origin];
  } catch {
    throw new Error(`GATSBY_SUPABASE_URL is not a URL: "${raw}"`);
  }
}

export interface SecurityOptions {
  publicDir: string;
  /** Extra origins the page may call and post its signup form to: the Supabase project of `GATSBY_SUPABASE_URL`. */
  connectOrigins?: string[];
}

/**
 * The archive's search (Pagefind, build/search-index.ts) runs from the site's own `/pagefind/`
 * ('self') and compiles its WebAssembly: 'wasm-unsafe-eval' allows that and nothing else (no
 * `eval`, no `new Function`, which 'unsafe-eval' would).
 */
export const WASM_SOURCE = "'wasm-unsafe-eval'";

export function contentSecurityPolicy(options: SecurityOptions): string {
  const scripts = ["'self'", ...inlineScriptHashes(options.publicDir), WASM_SOURCE];
  const connect = ["'self'", ...(options.connectOrigins ?? [])];
  return [
    "default-src 'self'",
    `script-src ${scripts.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect.join(" ")}`,
    "manifest-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    // The signup card posts to send-confirmation, on Supabase another origin, without JavaScript.
    `form-action ${connect.join(" ")}`,
  ].join("; ");
}

export function securityHeaders(csp: string): Record<string, string> {
  return {
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
  };
}

/** Where the content editor (Decap CMS) lives; it gets its own policy and stays out of search. */
export const ADMIN_PATH = "/admin/";

/** Where the content editor's local backend answers on an editor's machine (`npm run cms`, scripts/cms-backend.ts). */
export const localBackendOrigins = (port: number): string[] => [
  `http://localhost:${port}`,
  `http://127.0.0.1:${port}`,
];

/**
 * The policy for `/admin/` only. Decap CMS compiles its configuration's schema at run time (ajv)
 * and instantiates WebAssembly, so it needs 'unsafe-eval'; its styles are inline (emotion); it
 * talks to GitHub's API and, on an editor's machine, to the local backend (`localBackends`). The
 * rest of the site keeps `contentSecurityPolicy`.
 */
export function adminContentSecurityPolicy(options: { localBackends?: readonly string[] } = {}): string {
  const connect = ["'self'", "https://api.github.com", ...(options.localBackends ?? [])];
  return [
    "default-src 'self'",
    "script-src 'self' 'unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    `connect-src ${connect.join(" ")}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
}

/**
 * Every header `/admin/` answers with: its own policy, kept out of search results, and a window
 * policy that lets the GitHub sign-in popup (cms-auth) hand the token back to the page that opened
 * it; `same-origin` would cut the popup off from its opener.
 */
export const adminSecurityHeaders = (
  options: { localBackends?: readonly string[] } = {},
): Record<string, string> => ({
  ...securityHeaders(adminContentSecurityPolicy(options)),
  "Cross-Origin-Opener-Policy": "same-origin-allow-popups",
  "X-Robots-Tag": "noindex",
});

/** The two pages around the editor's GitHub sign-in (build/cms-sign-in-pages.ts). */
export const SIGN_IN_PAGES = [CMS_SIGN_IN_PATH, CMS_SIGNED_IN_PATH] as const;

export const isSignInPage = (urlPath: string): boolean =>
  SIGN_IN_PAGES.some(
    (page) => urlPath === page || urlPath === page.slice(0, -1) || urlPath === `${page}index.html`,
  );

/**
 * The sign-in pages' headers. They live in the popup that GitHub's pages passed through, so they
 * keep their opener (COOP unsafe-none; `/admin/`'s policy would cut them off and the token could
 * not reach the editor), run only their own script file, and may call only the functions
 * (`connectOrigins`: the Supabase project; the local stack is 'self').
 */
export function signInPageSecurityHeaders(connectOrigins: readonly string[] = []): Record<string, string> {
  return {
    ...securityHeaders(
      [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        `connect-src ${["'self'", ...connectOrigins].join(" ")}`,
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
      ].join("; "),
    ),
    "Cross-Origin-Opener-Policy": "unsafe-none",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
  };
}

export const isAdminPath = (urlPath: string): boolean =>
  urlPath === "/admin" || urlPath.startsWith(ADMIN_PATH);
