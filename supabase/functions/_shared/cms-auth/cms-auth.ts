/**
 * `cms-auth`: the content editor's GitHub sign-in, as the OAuth provider Decap CMS expects
 * (https://decapcms.org/docs/external-oauth-clients/). `/admin/` opens it in a popup:
 *
 * - `GET /cms-auth?provider=github&scope=repo` sets a cookie holding this browser's nonce and
 *   redirects to GitHub's authorize page with the OAuth App's Client ID and a signed, short-lived
 *   `state` (`oauth-state.ts`);
 * - `GET /cms-auth/callback?code&state` checks the state against the cookie and claims it once
 *   (`state-store.ts`), exchanges the code with the client secret, and answers a page that hands
 *   the token to the window that opened it, only if that window is the site's own origin
 *   (Decap's `authorizing:github` handshake, then `authorization:github:success:{…}`).
 *
 * A wrong, replayed or expired state, or a cancelled sign-in, gets a 4xx page and no token;
 * GitHub's errors become a page that says what happened. Every page has its own strict policy and
 * no Referrer (the address holds the code), and keeps its opener (COOP unsafe-none).
 */
import type { CmsAuthConfig } from "../config.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { escapeHtml } from "../contract/escape-html.ts";
import { fromStorage, StorageUnavailable } from "../http/answers.ts";
import type { Logger } from "../logger.ts";
import { checkState, issueState, STATE_TTL_SECONDS, stateKey, type StateCheck } from "./oauth-state.ts";
import { createStateStore } from "./state-store.ts";

export type HttpFetch = (url: string, init?: RequestInit) => Promise<Response>;

export interface CmsAuthDeps {
  config: CmsAuthConfig | null;
  db: SqlExecutor;
  /** The functions' base URL: the callback GitHub sends the editor back to is under it. */
  functionsUrl: string;
  /** Where the token may go: the site's own origins (`ALLOWED_ORIGINS`, else `SITE_URL`'s). */
  siteOrigins: readonly string[];
  log: Logger;
  now?: () => Date;
  fetch?: HttpFetch;
}

export interface CmsAuth {
  start(request: Request): Promise<Response>;
  callback(request: Request): Promise<Response>;
}

export const COOKIE = "cms_auth_nonce";
const PROVIDER = "github";
/** What Decap asks for: `repo`, or `public_repo` for a public repository. */
const SCOPES = new Set(["repo", "public_repo"]);
const EXCHANGE_TIMEOUT_MS = 10_000;

const REFUSED_STATE: Record<Exclude<StateCheck, { ok: true }>["reason"] | "replayed", string> = {
  malformed: "This sign-in address is not one this site made.",
  no_cookie:
    "This sign-in was not started in this browser (or its cookie was blocked), so it cannot finish here.",
  forged: "This sign-in address is not one this site made.",
  expired: `This sign-in took longer than ${STATE_TTL_SECONDS / 60} minutes and has expired.`,
  replayed: "This sign-in address has already been used.",
};

const AGAIN = "Close this window, go back to the content editor and click Login with GitHub again.";

export function createCmsAuth(deps: CmsAuthDeps): CmsAuth {
  const { config, log } = deps;
  const now = deps.now ?? (() => new Date());
  const fetchUrl: HttpFetch = deps.fetch ?? ((url, init) => fetch(url, init));
  const states = createStateStore(deps.db);
  const key = config ? stateKey(config.clientSecret) : null;
  const functions = new URL(deps.functionsUrl);
  const callbackUrl = `${deps.functionsUrl}/cms-auth/callback`;
  const cookiePath = `${functions.pathname.replace(/\/+$/, "")}/cms-auth`;
  const secure = functions.protocol === "https:";
  const clearCookie = `${COOKIE}=; Path=${cookiePath}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

  const notConfigured = () =>
    page(503, {
      title: "Sign-in is not set up",
      message:
        "The content editor's GitHub sign-in is not set up on this server yet (CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET). The site's owner can set it up as docs/deploying.md describes.",
    });

  /** A page that says what went wrong, tells Decap too (it shows the message), and clears the cookie. */
  const failure = (status: number, title: string, message: string) =>
    page(
      status,
      {
        title,
        message: `${message} ${AGAIN}`,
        post: `authorization:${PROVIDER}:error:${JSON.stringify({ message })}`,
      },
      deps.siteOrigins,
      { "Set-Cookie": clearCookie },
    );

  return {
    async start(request) {
      if (!config || !key) return notConfigured();
      const url = new URL(request.url);
      const provider = url.searchParams.get("provider");
      if (provider !== PROVIDER)
        return page(400, {
          title: "Unknown sign-in provider",
          message: `This site signs editors in with GitHub only (asked for "${provider ?? ""}").`,
        });
      const scope = url.searchParams.get("scope") ?? "repo";
      const issued = await issueState(await key, now());
      const authorize = new URL(`${config.githubUrl}/login/oauth/authorize`);
      authorize.searchParams.set("client_id", config.clientId);
      authorize.searchParams.set("redirect_uri", callbackUrl);
      authorize.searchParams.set("scope", SCOPES.has(scope) ? scope : "repo");
      authorize.searchParams.set("state", issued.state);
      authorize.searchParams.set("allow_signup", "false");
      return new Response(null, {
        status: 302,
        headers: {
          Location: authorize.href,
          "Set-Cookie": `${COOKIE}=${issued.browserNonce}; Path=${cookiePath}; Max-Age=${STATE_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
          "Referrer-Policy": "no-referrer",
          // A redirect's window policy counts too: the popup must stay with its opener.
          "Cross-Origin-Opener-Policy": "unsafe-none",
        },
      });
    },

    async callback(request) {
      if (!config || !key) return notConfigured();
      const url = new URL(request.url);
      const params = url.searchParams;
      const check = await checkState(
        await key,
        params.get("state") ?? undefined,
        readCookie(request, COOKIE),
        now(),
      );
      if (!check.ok) {
        log.warn(`cms-auth: callback refused (${check.reason})`);
        return failure(400, "Sign-in refused", REFUSED_STATE[check.reason]);
      }
      try {
        if (!(await fromStorage(() => states.claim(check.id, check.expiresAt, now())))) {
          log.warn("cms-auth: callback refused (replayed)");
          return failure(400, "Sign-in refused", REFUSED_STATE.replayed);
        }
      } catch (error) {
        if (!(error instanceof StorageUnavailable)) throw error;
        log.error(`cms-auth: storage failed: ${error.message}`);
        return failure(503, "Sign-in failed", "The site could not record this sign-in just now.");
      }
      const githubError = params.get("error");
      if (githubError) {
        const cancelled = githubError === "access_denied";
        return failure(
          cancelled ? 403 : 400,
          cancelled ? "Sign-in cancelled" : "GitHub refused the sign-in",
          cancelled
            ? "The content editor was not authorized on GitHub, so you are not signed in."
            : `GitHub said: ${params.get("error_description") ?? githubError}.`,
        );
      }
      const code = params.get("code");
      if (!code) return failure(400, "Sign-in refused", "GitHub sent no authorization code.");

      const exchanged = await exchange(code);
      if ("failure" in exchanged) return failure(exchanged.status, exchanged.title, exchanged.failure);
      log.info("cms-auth: an editor signed in");
      return page(
        200,
        {
          title: "Signed in",
          message: "You are signed in. This window closes by itself; if it does not, close it.",
          post: `authorization:${PROVIDER}:success:${JSON.stringify({ token: exchanged.token, provider: PROVIDER })}`,
          noOpener:
            "This window was not opened by the content editor, so the sign-in cannot reach it. Open /admin/ on the site and click Login with GitHub.",
        },
        deps.siteOrigins,
        { "Set-Cookie": clearCookie },
      );
    },
  };

  async function exchange(
    code: string,
  ): Promise<{ token: string } | { failure: string; status: number; title: string }> {
    if (!config) throw new Error("cms-auth is not configured");
    const unreachable = { status: 502, title: "GitHub did not answer" };
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
      return { ...unreachable, failure: "GitHub could not be reached to finish the sign-in." };
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
      return {
        status: wrongApp ? 502 : 400,
        title: "GitHub refused the sign-in",
        failure: wrongApp
          ? "The site's GitHub OAuth App is set up wrongly (its client secret or callback URL); the site's owner can check it as docs/deploying.md describes."
          : `GitHub said: ${typeof body.error_description === "string" ? body.error_description : body.error}.`,
      };
    }
    log.error(`cms-auth: GitHub's token endpoint answered ${response.status} without a token`);
    return { ...unreachable, failure: `GitHub answered ${response.status} and no sign-in.` };
  }
}

function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=") || undefined;
  }
  return undefined;
}

interface PageText {
  title: string;
  message: string;
  /** A message for the opener (Decap), after the handshake, to the site's origins only. */
  post?: string;
  /** What the page says when there is no opener to tell. */
  noOpener?: string;
}

/** JSON safe inside a <script>: no `<`, so no `</script>`. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

function page(
  status: number,
  text: PageText,
  origins: readonly string[] = [],
  headers: Record<string, string> = {},
): Response {
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  // The handshake Decap expects: say `authorizing:github` to the opener on each of the site's
  // origins; the one that is really there answers from its origin, and only it gets the message.
  const script = text.post
    ? `<script nonce="${nonce}">
(function () {
  var origins = ${scriptJson(origins)};
  var message = ${scriptJson(text.post)};
  var opener = window.opener;
  if (!opener) {
    ${text.noOpener ? `document.getElementById("message").textContent = ${scriptJson(text.noOpener)};` : ""}
    return;
  }
  window.addEventListener("message", function (event) {
    if (origins.indexOf(event.origin) === -1 || event.data !== "authorizing:${PROVIDER}") return;
    opener.postMessage(message, event.origin);
  });
  origins.forEach(function (origin) {
    opener.postMessage("authorizing:${PROVIDER}", origin);
  });
})();
</script>`
    : "";
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(text.title)} · Content editor</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1c1917;background:#fff}h1{font-size:1.5rem}</style>
</head>
<body>
<main>
<h1>${escapeHtml(text.title)}</h1>
<p id="message">${escapeHtml(text.message)}</p>
</main>
${script}
</body>
</html>
`;
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      // The sign-in window must keep its opener to hand it the token.
      "Cross-Origin-Opener-Policy": "unsafe-none",
      // A page that may carry a token is never kept by a cache.
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
      "X-Robots-Tag": "noindex",
      ...headers,
    },
  });
}
