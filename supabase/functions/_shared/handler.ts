/**
 * The three functions as `(Request) => Promise<Response>`, the same on Supabase (Deno) and on
 * the local stack (Node). Order of checks: CORS preflight, method, rate limit, size, media type,
 * body, then one transaction; a rejected request stores nothing and queues no mail.
 */
import { rateLimitSubject } from "./client-address.ts";
import type { Config } from "./config.ts";
import { checkEmail } from "./email-address.ts";
import { corsHeaders, errorResponse, jsonResponse, mediaType, readBodyLimited } from "./http.ts";
import type { Logger } from "./logger.ts";
import type { SubscriberStore } from "./subscriber-store.ts";
import { isWellFormedToken, sha256Hex } from "./tokens.ts";

export const FUNCTION_NAMES = ["send-confirmation", "confirm-subscription", "unsubscribe"] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];
export const isFunctionName = (name: string): name is FunctionName =>
  (FUNCTION_NAMES as readonly string[]).includes(name);

export interface HandlerDeps {
  store: SubscriberStore;
  config: Config;
  log: Logger;
  now?: () => Date;
  /** Called after a signup committed a mail job: the host starts its sender (after the answer). */
  onMailQueued?: () => void;
}

export interface RequestInfo {
  /** The client's address for rate limiting: the socket's, or a trusted proxy's x-forwarded-for. */
  clientAddress?: string;
  /** Receives a short outcome ("pending:new", "unknown_token") for the host's request log. */
  note?: (outcome: string) => void;
}

export type FunctionHandler = (request: Request, info?: RequestInfo) => Promise<Response>;

const RATE_WINDOW_MS = 60_000;
const RETRY_STORAGE_SECONDS = "5";

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; response: Response };

/** JSON object bodies only: `{"email": "..."}` or `{"token": "..."}`. */
function parseJsonObject(bytes: Uint8Array<ArrayBuffer>, cors: Headers): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return {
      ok: false,
      response: errorResponse(400, "invalid_json", "The request body is not valid JSON.", cors),
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      response: errorResponse(400, "invalid_body", "The request body must be a JSON object.", cors),
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * The page a signup came from, for the consent record: the Referer (or Origin) reduced to origin
 * and path, so a query string (which may hold a token) is never stored.
 */
function consentSource(request: Request): string | null {
  for (const header of ["referer", "origin"]) {
    const raw = request.headers.get(header);
    if (!raw) continue;
    try {
      const url = new URL(raw);
      if (url.protocol === "http:" || url.protocol === "https:")
        return `${url.origin}${url.pathname}`.slice(0, 500);
    } catch {
      // Not a URL: try the next header.
    }
  }
  return null;
}

const EMAIL_MESSAGES = {
  missing: "An e-mail address is required.",
  too_long: "The e-mail address is longer than 254 characters.",
  invalid: "This is not a valid e-mail address.",
} as const;

export function createFunctionHandler(name: FunctionName, deps: HandlerDeps): FunctionHandler {
  const { store, config, log } = deps;
  const now = deps.now ?? (() => new Date());

  const storageFailure = (error: unknown, cors: Headers, info?: RequestInfo): Response => {
    log.error(`${name}: storage failed: ${error instanceof Error ? error.message : String(error)}`);
    info?.note?.("storage_unavailable");
    return errorResponse(
      503,
      "storage_unavailable",
      "The service is unavailable. Please try again later.",
      cors,
      {
        "Retry-After": RETRY_STORAGE_SECONDS,
      },
    );
  };

  /** A hash of what the rate limits count for this client, so the tables never keep addresses. */
  const clientKeyOf = async (clientAddress: string) =>
    (await sha256Hex(rateLimitSubject(clientAddress))).slice(0, 32);

  // Signups are limited tightly; the mail links' endpoints generously (a household clicking
  // links, a mail provider posting one-click unsubscribes), but no longer without a bound.
  const perMinute = name === "send-confirmation" ? config.rateLimitPerMinute : config.linkRateLimitPerMinute;

  async function rateLimited(clientKey: string, cors: Headers): Promise<Response | null> {
    const at = now().getTime();
    const windowStart = new Date(at - (at % RATE_WINDOW_MS));
    const hits = await store.hit(`${name}:${clientKey}`, windowStart);
    if (hits <= perMinute) return null;
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + RATE_WINDOW_MS - at) / 1000));
    return errorResponse(429, "rate_limited", "Too many requests. Please try again in a minute.", cors, {
      "Retry-After": String(retryAfter),
    });
  }

  async function sendConfirmation(
    request: Request,
    body: Uint8Array<ArrayBuffer>,
    cors: Headers,
    clientKey: string,
    info?: RequestInfo,
  ): Promise<Response> {
    if (mediaType(request) !== "application/json") {
      return errorResponse(415, "unsupported_media_type", "Send the request body as application/json.", cors);
    }
    const parsed = parseJsonObject(body, cors);
    if (!parsed.ok) return parsed.response;
    const email = checkEmail(parsed.value.email);
    if (!email.ok) {
      info?.note?.(`invalid_email:${email.reason}`);
      return errorResponse(400, "invalid_email", EMAIL_MESSAGES[email.reason], cors);
    }
    let result: Awaited<ReturnType<SubscriberStore["signup"]>>;
    try {
      result = await store.signup({
        email: email.email,
        consentSource: consentSource(request),
        now: now(),
        limits: config,
        confirmTokenTtlHours: config.confirmTokenTtlHours,
        clientKey,
      });
    } catch (error) {
      return storageFailure(error, cors, info);
    }
    info?.note?.(`pending:${result.decision.reason}`);
    if (result.mailJobId !== null) deps.onMailQueued?.();
    // The same answer whatever the address's status: no one learns who is subscribed.
    return jsonResponse(200, { status: "pending" }, cors);
  }

  /** The token from a JSON body, or from `?token=` with the RFC 8058 one-click form body. */
  async function readToken(
    request: Request,
    body: Uint8Array<ArrayBuffer>,
    cors: Headers,
  ): Promise<{ token: unknown } | Response> {
    const type = mediaType(request);
    const queryToken = new URL(request.url).searchParams.get("token");
    if (type === "application/json") {
      const parsed = parseJsonObject(body, cors);
      if (!parsed.ok) return parsed.response;
      return { token: parsed.value.token ?? queryToken };
    }
    const form =
      type === "" || type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
    if (name === "unsubscribe" && queryToken !== null && form) {
      let oneClick = false;
      try {
        const contentType = request.headers.get("content-type") || "application/x-www-form-urlencoded";
        const fields = await new Response(body, { headers: { "Content-Type": contentType } }).formData();
        oneClick = fields.get("List-Unsubscribe") === "One-Click";
      } catch {
        oneClick = false;
      }
      if (!oneClick) {
        return errorResponse(
          400,
          "invalid_body",
          "A one-click unsubscribe must post List-Unsubscribe=One-Click.",
          cors,
        );
      }
      return { token: queryToken };
    }
    return errorResponse(415, "unsupported_media_type", "Send the request body as application/json.", cors);
  }

  async function confirmOrUnsubscribe(
    request: Request,
    body: Uint8Array<ArrayBuffer>,
    cors: Headers,
    info?: RequestInfo,
  ): Promise<Response> {
    const read = await readToken(request, body, cors);
    if (read instanceof Response) return read;
    if (!isWellFormedToken(read.token)) {
      info?.note?.("invalid_token");
      return errorResponse(
        400,
        "invalid_token",
        "The link is incomplete. Please open it again from the mail.",
        cors,
      );
    }
    const hash = await sha256Hex(read.token);
    try {
      if (name === "confirm-subscription") {
        const result = await store.confirm(hash, now());
        info?.note?.(result);
        if (result === "unknown")
          return errorResponse(404, "unknown_token", "This confirmation link is not valid.", cors);
        if (result === "expired") {
          return errorResponse(
            410,
            "expired_token",
            "This confirmation link has expired. Please sign up again.",
            cors,
          );
        }
        return jsonResponse(200, { status: "confirmed" }, cors);
      }
      const result = await store.unsubscribe(hash, now());
      info?.note?.(result);
      if (result === "unknown")
        return errorResponse(404, "unknown_token", "This unsubscribe link is not valid.", cors);
      return jsonResponse(200, { status: "unsubscribed" }, cors);
    } catch (error) {
      return storageFailure(error, cors, info);
    }
  }

  return async (request, info) => {
    const cors = corsHeaders(request, config.allowedOrigins);
    if (request.method === "OPTIONS") {
      cors.set("Allow", "POST, OPTIONS");
      return new Response(null, { status: 204, headers: cors });
    }
    if (request.method !== "POST") {
      return errorResponse(405, "method_not_allowed", `${name} accepts POST only.`, cors, {
        Allow: "POST, OPTIONS",
      });
    }
    const clientKey = await clientKeyOf(info?.clientAddress ?? "unknown");
    try {
      const limited = await rateLimited(clientKey, cors);
      if (limited) {
        info?.note?.("rate_limited");
        return limited;
      }
    } catch (error) {
      return storageFailure(error, cors, info);
    }
    let body: Awaited<ReturnType<typeof readBodyLimited>>;
    try {
      body = await readBodyLimited(request, config.maxBodyBytes);
    } catch (error) {
      // The client went away or sent a broken body: nothing was read, nothing is stored.
      info?.note?.("unreadable_body");
      log.warn(
        `${name}: the request body could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
      return errorResponse(400, "unreadable_body", "The request body could not be read.", cors);
    }
    if (body === "too_large") {
      return errorResponse(
        413,
        "payload_too_large",
        `The request body is larger than ${config.maxBodyBytes} bytes.`,
        cors,
      );
    }
    try {
      return name === "send-confirmation"
        ? await sendConfirmation(request, body, cors, clientKey, info)
        : await confirmOrUnsubscribe(request, body, cors, info);
    } catch (error) {
      log.error(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return errorResponse(500, "internal_error", "Something went wrong. Please try again later.", cors);
    }
  };
}
