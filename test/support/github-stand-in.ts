/**
 * A small GitHub on loopback, for the content editor's sign-in (GitHub itself cannot be reached
 * here): the OAuth App's authorize page (an editor clicks "Authorize" or "Cancel"), the code
 * exchange (codes used once, the client secret checked, errors answered as GitHub answers them: 200
 * with `error`), and the few API answers Decap asks for after signing in (`/user`, the repository
 * with push permission). cms-auth reaches it through `CMS_GITHUB_URL`; the browser test hands the
 * CMS's calls to https://api.github.com to it.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./loopback-http.ts";

export const STAND_IN_CLIENT_ID = "Iv1.standin0client";
export const STAND_IN_CLIENT_SECRET = "stand-in-client-secret-0123456789abcdef";

export interface GithubStandIn {
  url: string;
  /** The tokens it issued, in order. */
  tokens: string[];
  /** Every request, as `METHOD /path?query`. */
  requests: string[];
  /** The Authorization headers the API calls carried. */
  apiAuthorizations: string[];
  stop(): Promise<void>;
}

const html = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize application</title></head><body>${body}</body></html>`;

export async function startGithubStandIn(
  options: { clientId?: string; clientSecret?: string; repo?: string } = {},
): Promise<GithubStandIn> {
  const clientId = options.clientId ?? STAND_IN_CLIENT_ID;
  const clientSecret = options.clientSecret ?? STAND_IN_CLIENT_SECRET;
  const codes = new Map<string, string>();
  const tokens: string[] = [];
  const requests: string[] = [];
  const apiAuthorizations: string[] = [];

  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { "Content-Type": "application/json" });
    response.end(JSON.stringify(body));
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (request.method === "GET" && url.pathname === "/login/oauth/authorize") {
      const redirect = url.searchParams.get("redirect_uri") ?? "";
      const state = url.searchParams.get("state") ?? "";
      if (url.searchParams.get("client_id") !== clientId || !/^https?:\/\//.test(redirect)) {
        response.writeHead(404, { "Content-Type": "text/html" });
        response.end(html("<h1>404: not an OAuth App</h1>"));
        return;
      }
      const code = randomBytes(10).toString("hex");
      codes.set(code, redirect);
      const back = (params: Record<string, string>) => {
        const target = new URL(redirect);
        for (const [name, value] of Object.entries({ ...params, state }))
          target.searchParams.set(name, value);
        return target.href.replace(/&/g, "&amp;");
      };
      response.writeHead(200, { "Content-Type": "text/html" });
      response.end(
        html(
          `<h1>Authorize the content editor</h1><p>It asks for: ${url.searchParams.get("scope") ?? ""}</p>` +
            `<a href="${back({ code })}">Authorize</a> <a href="${back({ error: "access_denied", error_description: "The user has denied your application access." })}">Cancel</a>`,
        ),
      );
      return;
    }
    if (request.method === "POST" && url.pathname === "/login/oauth/access_token") {
      const raw = (await readBody(request)).toString("utf8");
      const body = (request.headers["content-type"] ?? "").includes("json")
        ? (JSON.parse(raw) as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(raw));
      if (body.client_id !== clientId || body.client_secret !== clientSecret) {
        json(response, 200, {
          error: "incorrect_client_credentials",
          error_description: "The client_id and/or client_secret passed are incorrect.",
        });
        return;
      }
      const redirect = codes.get(body.code);
      codes.delete(body.code);
      if (!redirect) {
        json(response, 200, {
          error: "bad_verification_code",
          error_description: "The code passed is incorrect or expired.",
        });
        return;
      }
      if (body.redirect_uri && body.redirect_uri !== redirect) {
        json(response, 200, {
          error: "redirect_uri_mismatch",
          error_description: "The redirect_uri MUST match the registered callback URL for this application.",
        });
        return;
      }
      const token = `gho_${randomBytes(18).toString("hex")}`;
      tokens.push(token);
      json(response, 200, { access_token: token, token_type: "bearer", scope: "repo" });
      return;
    }
    // The API (https://api.github.com, handed here by the browser test), called from the editor's
    // page on another origin: CORS as GitHub answers it.
    response.setHeader("Access-Control-Allow-Origin", "*");
    if (request.method === "OPTIONS") {
      response.writeHead(204, {
        "Access-Control-Allow-Methods": "GET, POST, PATCH, PUT, DELETE",
        "Access-Control-Allow-Headers": request.headers["access-control-request-headers"] ?? "Authorization",
      });
      response.end();
      return;
    }
    const authorization = request.headers.authorization ?? "";
    apiAuthorizations.push(authorization);
    const signedIn = tokens.some(
      (token) => authorization === `token ${token}` || authorization === `Bearer ${token}`,
    );
    if (!signedIn) {
      json(response, 401, { message: "Bad credentials" });
      return;
    }
    if (url.pathname === "/user") {
      json(response, 200, { login: "editor", name: "An Editor", id: 1, avatar_url: "" });
      return;
    }
    if (options.repo && url.pathname === `/repos/${options.repo}`) {
      json(response, 200, {
        full_name: options.repo,
        name: options.repo.split("/")[1],
        owner: { login: options.repo.split("/")[0] },
        default_branch: "main",
        permissions: { admin: false, push: true, pull: true },
      });
      return;
    }
    json(response, 404, { message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tokens,
    requests,
    apiAuthorizations,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The repository the browser tests' build points the content editor at (its config.yml). */
export const E2E_REPO = "purpose-effect/site";
export const E2E_CMS_ENV = { DECAP_GITHUB_REPO: E2E_REPO } as const;
