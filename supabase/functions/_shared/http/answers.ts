/**
 * What a function answers, as typed values: an `Accepted` result, or a `Refusal` (thrown) with the
 * contract's status, error code and message. `app.ts` turns either into HTTP (a JSON body, or a
 * redirect for a plain form post); handlers never build a Response. Also the request bodies the
 * functions read: a JSON object, or an HTML form's fields, strictly UTF-8.
 */

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
  | "invalid_code"
  | "invalid_cookie"
  | "code_used"
  | "unknown_token"
  | "expired_token"
  | "rate_limited"
  | "forbidden_origin"
  | "unauthorized"
  | "invalid_signature"
  | "stale_event"
  | "invalid_event"
  | "not_configured"
  | "upstream_unavailable"
  | "storage_unavailable"
  | "site_unavailable"
  | "internal_error";

export type RefusalStatus = 400 | 401 | 403 | 404 | 405 | 410 | 413 | 415 | 429 | 500 | 503;

/** A call the function accepted: the JSON body it answers with, and the request log's outcome. */
export interface Accepted<Body extends object = object> {
  body: Body;
  /** A short word for the request log, e.g. `pending:new`, `confirmed`. */
  outcome: string;
}

/** A call the contract refuses. Thrown by a handler (or a step before it) and answered by the app. */
export class Refusal extends Error {
  override name = "Refusal";
  constructor(
    readonly status: RefusalStatus,
    readonly code: ErrorCode,
    message: string,
    readonly details: {
      /** Extra answer headers (`Retry-After`). */
      headers?: Record<string, string>;
      /** The request log's outcome when it says more than the code: `invalid_email:missing`. */
      outcome?: string;
    } = {},
  ) {
    super(message);
  }

  get outcome(): string {
    return this.details.outcome ?? this.code;
  }
}

/** Thrown by `fromStorage`, so the app answers 503 (try again later) instead of 500 (a bug). */
export class StorageUnavailable extends Error {
  override name = "StorageUnavailable";
}

/** Runs database work; its failure means "try again later", not a bug. */
export async function fromStorage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new StorageUnavailable(error instanceof Error ? error.message : String(error));
  }
}

/** The body of every refusal: `{"error": {"code": "...", "message": "..."}}`. */
export const errorBody = (code: ErrorCode, message: string) => ({ error: { code, message } });

export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/** The media type without parameters, lower-cased: `application/json; charset=utf-8` → `application/json`. */
export const mediaType = (request: Request): string =>
  (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();

const decoder = () => new TextDecoder("utf-8", { fatal: true });

/** A JSON object body: `{"email": "..."}` or `{"token": "..."}`; anything else is a 400. */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decoder().decode(bytes));
  } catch {
    throw new Refusal(400, "invalid_json", "The request body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Refusal(400, "invalid_body", "The request body must be a JSON object.");
  return value as Record<string, unknown>;
}

/**
 * An HTML form's body (`email=ann%40example.com`) as its fields, the first value of each name
 * counting. Strict where `URLSearchParams` is lenient: bytes that are not UTF-8, raw or
 * percent-encoded, are a 400 rather than U+FFFD in a stored address.
 */
export function parseFormObject(bytes: Uint8Array): Record<string, unknown> {
  const fields = new Map<string, string>();
  const decode = (part: string) => decodeURIComponent(part.replaceAll("+", " "));
  try {
    for (const pair of decoder().decode(bytes).split("&")) {
      if (pair === "") continue;
      const equals = pair.indexOf("=");
      const name = decode(equals < 0 ? pair : pair.slice(0, equals));
      const value = equals < 0 ? "" : decode(pair.slice(equals + 1));
      if (!fields.has(name)) fields.set(name, value);
    }
  } catch {
    throw new Refusal(400, "invalid_form", "The form could not be read: it is not URL-encoded UTF-8 text.");
  }
  return Object.fromEntries(fields);
}
