/**
 * HTTP plumbing shared by the three functions: CORS for the site's origins only, the error body
 * every answer uses, and reading a body without ever holding more than the limit.
 */

/** The headers supabase-js sends with `functions.invoke`. */
const ALLOWED_HEADERS = "authorization, apikey, x-client-info, content-type";

export function corsHeaders(request: Request, allowedOrigins: readonly string[]): Headers {
  const headers = new Headers({ Vary: "Origin" });
  const origin = request.headers.get("origin");
  if (origin && allowedOrigins.includes(origin)) {
    headers.set("Access-Control-Allow-Origin", origin);
    headers.set("Access-Control-Allow-Methods", "POST, OPTIONS");
    headers.set("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    headers.set("Access-Control-Max-Age", "600");
  }
  return headers;
}

/** The CORS headers, `Cache-Control: no-store` (no answer here may be cached) and `set`. */
function answerHeaders(cors: Headers, set: Record<string, string>): Headers {
  const all = new Headers(cors);
  all.set("Cache-Control", "no-store");
  for (const [name, value] of Object.entries(set)) all.set(name, value);
  return all;
}

export const jsonResponse = (
  status: number,
  body: unknown,
  headers: Headers,
  extra: Record<string, string> = {},
): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: answerHeaders(headers, { "Content-Type": "application/json; charset=utf-8", ...extra }),
  });

export type ErrorCode =
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "invalid_json"
  | "invalid_form"
  | "unreadable_body"
  | "invalid_body"
  | "invalid_email"
  | "invalid_token"
  | "unknown_token"
  | "expired_token"
  | "rate_limited"
  | "forbidden_origin"
  | "storage_unavailable"
  | "internal_error";

export const errorResponse = (
  status: number,
  code: ErrorCode,
  message: string,
  headers: Headers,
  extra: Record<string, string> = {},
): Response => jsonResponse(status, { error: { code, message } }, headers, extra);

/**
 * A plain-text answer, for a person whose browser shows it as a page (a form post refused before
 * it could be sent on to a page of the site).
 */
export const textResponse = (status: number, text: string, headers: Headers): Response =>
  new Response(text, {
    status,
    headers: answerHeaders(headers, { "Content-Type": "text/plain; charset=utf-8" }),
  });

/** `303 See Other`: the browser that posted a form loads `location` with a GET. */
export const seeOther = (location: string, headers: Headers): Response =>
  new Response(null, { status: 303, headers: answerHeaders(headers, { Location: location }) });

export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/** The media type without parameters, lower-cased: `application/json; charset=utf-8` → `application/json`. */
export const mediaType = (request: Request): string =>
  (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();

/**
 * Reads the body, stopping as soon as it exceeds `maxBytes` (a declared Content-Length is
 * checked first), so an oversized request costs at most `maxBytes` of memory.
 */
export async function readBodyLimited(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | "too_large"> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > maxBytes) return "too_large";
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return "too_large";
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

type Parsed =
  { ok: true; value: Record<string, unknown> } | { ok: false; code: ErrorCode; response: Response };

const refuse = (code: ErrorCode, message: string, cors: Headers): Parsed => ({
  ok: false,
  code,
  response: errorResponse(400, code, message, cors),
});

/** A JSON object body: `{"email": "..."}` or `{"token": "..."}`; anything else is a 400. */
export function parseJsonObject(bytes: Uint8Array<ArrayBuffer>, cors: Headers): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return refuse("invalid_json", "The request body is not valid JSON.", cors);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse("invalid_body", "The request body must be a JSON object.", cors);
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * An HTML form's body (`email=ann%40example.com`) as its fields, the first value of each name
 * counting. Strict where `URLSearchParams` is lenient: bytes that are not UTF-8, raw or
 * percent-encoded, are a 400 rather than U+FFFD in a stored address.
 */
export function parseFormObject(bytes: Uint8Array<ArrayBuffer>, cors: Headers): Parsed {
  const fields = new Map<string, string>();
  const decode = (part: string) => decodeURIComponent(part.replaceAll("+", " "));
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    for (const pair of text.split("&")) {
      if (pair === "") continue;
      const equals = pair.indexOf("=");
      const name = decode(equals < 0 ? pair : pair.slice(0, equals));
      const value = equals < 0 ? "" : decode(pair.slice(equals + 1));
      if (!fields.has(name)) fields.set(name, value);
    }
  } catch {
    return refuse("invalid_form", "The form could not be read: it is not URL-encoded UTF-8 text.", cors);
  }
  return { ok: true, value: Object.fromEntries(fields) };
}
