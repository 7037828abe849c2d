/**
 * `cms-auth`: the content editor's GitHub sign-in, as the OAuth provider Decap CMS expects
 * (https://decapcms.org/docs/external-oauth-clients/). `/admin/` opens it in a popup. Supabase
 * serves a function's HTML as plain text, so no answer here is a page: each one is a redirect or
 * JSON, and the sign-in ends on a page of the site (contract/cms-sign-in.ts).
 *
 * - `GET /cms-auth?provider=github&scope=repo` sets a cookie holding this browser's nonce and
 *   redirects to GitHub's authorize page with the OAuth App's Client ID and a signed, short-lived
 *   `state` (`oauth-state.ts`);
 * - `GET /cms-auth/callback?code&state` checks the state against the cookie and claims it once
 *   (`state-store.ts`), exchanges the code with the client secret, keeps the token sealed under a
 *   one-time code for 60 s (`handoff-store.ts`) and redirects to the site's page with `#code=`;
 * - `POST /cms-auth/token {"code"}`, from that page: the token, once. The page hands it to the
 *   window that opened it on its own origin (Decap's `authorizing:github` handshake).
 *
 * A wrong, replayed or expired state, a cancelled sign-in or GitHub's refusal ends on the same
 * page with `#error=` and a reason it says in words, and never a token.
 */
import type { CmsAuthConfig } from "../config.ts";
import { CMS_HANDOFF_SECONDS, CMS_SIGNED_IN_PATH, type CmsSignInReason } from "../contract/cms-sign-in.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { fromStorage, mediaType, parseJsonObject, Refusal, StorageUnavailable } from "../http/answers.ts";
import type { Logger } from "../logger.ts";
import { sha256Hex } from "../subscriptions/tokens.ts";
import { createHandoffStore, openSealed, seal } from "./handoff-store.ts";
import { checkState, issueState, STATE_TTL_SECONDS, stateKey } from "./oauth-state.ts";
import { createStateStore } from "./state-store.ts";

export type HttpFetch = (url: string, init?: RequestInit) => Promise<Response>;

export interface CmsAuthDeps {
  config: CmsAuthConfig | null;
  db: SqlExecutor;
  /** The functions' base URL: the callback GitHub sends the editor back to is under it. */
  functionsUrl: string;
  /** The site, whose page finishes the sign-in (`SITE_URL`)... */
  siteUrl: string;
  /** ...or the allowed origin the editor's /admin/ is on (`ALLOWED_ORIGINS`), as its forward page says. */
  siteOrigins: readonly string[];
  log: Logger;
  now?: () => Date;
  fetch?: HttpFetch;
}

export interface CmsAuth {
  start(request: Request): Promise<Response>;
  callback(request: Request): Promise<Response>;
  token(request: Request, body: Uint8Array): Promise<{ token: string; provider: string }>;
}

export const COOKIE = "cms_auth_nonce";
/** The origin of the editor's /admin/, one of `siteOrigins`, kept beside the nonce for the callback. */
export const ORIGIN_COOKIE = "cms_auth_origin";
const PROVIDER = "github";
/** What Decap asks for: `repo`, or `public_repo` for a public repository. */
const SCOPES = new Set(["repo", "public_repo"]);
const EXCHANGE_TIMEOUT_MS = 10_000;
const CODE = /^[A-Za-z0-9_-]{43}$/;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

export function createCmsAuth(deps: CmsAuthDeps): CmsAuth {
  const { config, log } = deps;
  const now = deps.now ?? (() => new Date());
  const fetchUrl: HttpFetch = deps.fetch ?? ((url, init) => fetch(url, init));
  const states = createStateStore(deps.db);
  const handoffs = createHandoffStore(deps.db);
  const key = config ? stateKey(config.clientSecret) : null;
  const functions = new URL(deps.functionsUrl);
  const callbackUrl = `${deps.functionsUrl}/cms-auth/callback`;
  const cookiePath = `${functions.pathname.replace(/\/+$/, "")}/cms-auth`;
  const secure = functions.protocol === "https:";
  const cookie = (name: string, value: string, maxAge: number) =>
    `${name}=${value}; Path=${cookiePath}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
  const siteOrigin = new URL(deps.siteUrl).origin;
  /** The editor's origin when it is one of the site's, else `SITE_URL`'s: never anywhere else. */
  const allowedOrigin = (origin: string | null | undefined) =>
    origin && deps.siteOrigins.includes(origin) ? origin : siteOrigin;

  /** To the site's page on `origin`, which says in words what happened; the cookies go. */
  const toPage = (origin: string, fragment: string) => {
    const headers = new Headers({
      Location: `${origin}${CMS_SIGNED_IN_PATH}#${fragment}`,
      // The callback's address holds GitHub's code: no page after it learns it.
      "Referrer-Policy": "no-referrer",
      "Cross-Origin-Opener-Policy": "unsafe-none",
    });
    headers.append("Set-Cookie", cookie(COOKIE, "", 0));
    headers.append("Set-Cookie", cookie(ORIGIN_COOKIE, "", 0));
    return new Response(null, { status: 303, headers });
  };

  return {
    async start(request) {
      const url = new URL(request.url);
      // The origin the editor came from (its forward page says), if it is one of the site's.
      const origin = allowedOrigin(url.searchParams.get("origin"));
      const refused = (reason: CmsSignInReason) => toPage(origin, `error=${reason}`);
      if (!config || !key) return refused("not_configured");
      if (url.searchParams.get("provider") !== PROVIDER) return refused("unknown_provider");
      const scope = url.searchParams.get("scope") ?? "repo";
      const issued = await issueState(await key, now());
      const authorize = new URL(`${config.githubUrl}/login/oauth/authorize`);
      authorize.searchParams.set("client_id", config.clientId);
      authorize.searchParams.set("redirect_uri", callbackUrl);
      authorize.searchParams.set("scope", SCOPES.has(scope) ? scope : "repo");
      authorize.searchParams.set("state", issued.state);
      authorize.searchParams.set("allow_signup", "false");
      const headers = new Headers({
        Location: authorize.href,
        "Referrer-Policy": "no-referrer",
        // A redirect's window policy counts too: the popup must stay with its opener.
        "Cross-Origin-Opener-Policy": "unsafe-none",
      });
      headers.append("Set-Cookie", cookie(COOKIE, issued.browserNonce, STATE_TTL_SECONDS));
      headers.append("Set-Cookie", cookie(ORIGIN_COOKIE, encodeURIComponent(origin), STATE_TTL_SECONDS));
      return new Response(null, { status: 302, headers });
    },

    async callback(request) {
      const origin = allowedOrigin(readOriginCookie(request));
      const refused = (reason: CmsSignInReason) => toPage(origin, `error=${reason}`);
      if (!config || !key) return refused("not_configured");
      const params = new URL(request.url).searchParams;
      const check = await checkState(
        await key,
        params.get("state") ?? undefined,
        readCookie(request, COOKIE),
        now(),
      );
      if (!check.ok) {
        log.warn(`cms-auth: callback refused (${check.reason})`);
        return refused(check.reason);
      }
      try {
        if (!(await fromStorage(() => states.claim(check.id, check.expiresAt, now())))) {
          log.warn("cms-auth: callback refused (replayed)");
          return refused("replayed");
        }
      } catch (error) {
        if (!(error instanceof StorageUnavailable)) throw error;
        log.error(`cms-auth: storage failed: ${error.message}`);
        return refused("unavailable");
      }
      const githubError = params.get("error");
      if (githubError) return refused(githubError === "access_denied" ? "cancelled" : "github_refused");
      const code = params.get("code");
      if (!code) return refused("github_refused");

      const exchanged = await exchange(code);
      if ("failure" in exchanged) return refused(exchanged.failure);
      const oneTime = base64url(crypto.getRandomValues(new Uint8Array(32)));
      try {
        await fromStorage(async () =>
          handoffs.put(
            await sha256Hex(oneTime),
            await seal(exchanged.token, oneTime),
            new Date(now().getTime() + CMS_HANDOFF_SECONDS * 1000),
            now(),
          ),
        );
      } catch (error) {
        if (!(error instanceof StorageUnavailable)) throw error;
        log.error(`cms-auth: storage failed: ${error.message}`);
        return refused("unavailable");
      }
      log.info("cms-auth: an editor signed in");
      // A fragment never reaches a server, a log or a Referer; the page removes it from the history.
      return toPage(origin, `code=${oneTime}`);
    },

    async token(request, body) {
      if (!config) throw new Refusal(503, "not_configured", "The content editor's sign-in is not set up.");
      if (mediaType(request) !== "application/json")
        throw new Refusal(415, "unsupported_media_type", "Send the code as JSON.");
      const { code } = parseJsonObject(body);
      if (typeof code !== "string" || !CODE.test(code))
        throw new Refusal(400, "invalid_code", "The sign-in code is not one this site made.");
      const sealed = await fromStorage(async () => handoffs.take(await sha256Hex(code), now()));
      if (!sealed)
        throw new Refusal(410, "code_used", "This sign-in has already been finished, or waited too long.");
      return { token: await openSealed(sealed, code), provider: PROVIDER };
    },
  };

  async function exchange(code: string): Promise<{ token: string } | { failure: CmsSignInReason }> {
    if (!config) throw new Error("cms-auth is not configured");
    let response: Response;
    try {
      response = await fetchUrl(`${config.githubUrl}/login/oauth/access_token`, {
        method: "POST",
        headers: { Accept: "application/json", "Content-Type": "application/json" },
        body: JSON.stringify({
          client_id: config.clientId,
          client_secret: config.clientSecret,
          code,
          redirect_uri: callbackUrl,
        }),
        signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
      });
    } catch (error) {
      log.error(
        `cms-auth: GitHub's token endpoint failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return { failure: "github_unreachable" };
    }
    let body: { access_token?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      body = await response.json();
    } catch {
      // Not JSON (an outage page): reported below.
    }
    if (typeof body.access_token === "string" && body.access_token !== "" && response.ok)
      return { token: body.access_token };
    if (typeof body.error === "string") {
      // GitHub answers 200 with an error for a bad or used code, or a wrong secret.
      log.warn(`cms-auth: GitHub refused the code: ${body.error}`);
      const wrongApp =
        body.error === "incorrect_client_credentials" || body.error === "redirect_uri_mismatch";
      return { failure: wrongApp ? "github_misconfigured" : "github_refused" };
    }
    log.error(`cms-auth: GitHub's token endpoint answered ${response.status} without a token`);
    return { failure: "github_unreachable" };
  }
}

/**
 * The origin `start` kept in its cookie, percent-encoded. One that does not decode was not written
 * by `start` (a browser sends back what it was given): a 400 with the contract's error body, not a
 * bug's 500. One that decodes but is no origin of the site is still only ever an unknown origin:
 * `allowedOrigin` then ends the sign-in on SITE_URL's.
 */
function readOriginCookie(request: Request): string {
  try {
    return decodeURIComponent(readCookie(request, ORIGIN_COOKIE) ?? "");
  } catch {
    throw new Refusal(400, "invalid_cookie", "The sign-in's cookie is not one this site set.", {
      outcome: "invalid_cookie:origin",
    });
  }
}

function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=") || undefined;
  }
  return undefined;
}
