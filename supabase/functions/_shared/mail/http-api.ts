/**
 * What the HTTP mail APIs (Resend, SES) share: where they may be reached, and one request loop
 * that waits out a throttling answer within a bounded time instead of failing the mail at once.
 * Whatever is still failing when the time is up is thrown as a temporary `MailApiError`, which
 * the senders already retry later with backoff (the Effect's deliveries, the mail queue's jobs).
 */
import { ConfigError, parseUrlSetting } from "../contract/variables.ts";
import { MailApiError } from "./smtp-failure.ts";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * An API's base URL from its variable: https, or plain http only on this machine (a stand-in in
 * the tests). A key or a signed mail sent in clear to another host would be readable on the way.
 */
export function apiBaseUrl(value: string, variableName: string): URL {
  const url = parseUrlSetting(variableName, value, "it must be a URL such as https://api.example.com");
  if (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname))) return url;
  throw new ConfigError(
    `${variableName} must be https:// (plain http:// only to 127.0.0.1 or localhost, a stand-in)`,
  );
}

/** `base` + `path`, keeping a path prefix of the base (`https://proxy.example/resend` + `/emails`). */
export const endpoint = (base: URL, path: string): string => `${base.href.replace(/\/+$/, "")}${path}`;

export interface RetryPolicy {
  /** Requests at most, the first included. */
  attempts: number;
  /** The longest the loop waits in all (retry-after or backoff) before it gives the mail back. */
  maxWaitMs: number;
  /** The first backoff when the API names no wait; doubled at each retry. */
  baseDelayMs: number;
  /** Each request's own limit, so a silent server does not hold a sender. */
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  maxWaitMs: 20_000,
  baseDelayMs: 500,
  timeoutMs: 30_000,
};

/** What a transport read from one answer. */
export type Answer =
  | { ok: true }
  /** `retry`: worth asking again now (throttled, a 5xx); `retryAfterMs`: the wait the API asked for. */
  | { ok: false; error: MailApiError; retry: boolean; retryAfterMs?: number };

/** `retry-after` in seconds or as an HTTP date (RFC 9110 §10.2.3), in milliseconds from now. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface CallOptions {
  /** Names the API in errors: "Resend", "SES". */
  api: string;
  /** Sends the request once (the same bytes each time); `signal` ends it after `timeoutMs`. */
  request(signal: AbortSignal): Promise<Response>;
  read(response: Response): Promise<Answer>;
  /**
   * Ask again when no answer came. Only where the API keeps an idempotency key (Resend): the lost
   * request may have been accepted, and the same key and body make the second one a replay.
   */
  retryWithoutAnswer: boolean;
  /** Waits before each request (the account's request rate). */
  pace?: () => Promise<void>;
  policy: RetryPolicy;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function callMailApi(options: CallOptions): Promise<void> {
  const { policy } = options;
  const wait = policy.sleep ?? sleep;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    await options.pace?.();
    let failure: MailApiError;
    let retry: boolean;
    let askedWaitMs: number | undefined;
    try {
      const response = await options.request(AbortSignal.timeout(policy.timeoutMs));
      const answer = await options.read(response);
      if (answer.ok) return;
      ({ error: failure, retry, retryAfterMs: askedWaitMs } = answer);
    } catch (error) {
      if (error instanceof MailApiError) throw error;
      // No answer: refused, reset, or timed out. Whether the API took the mail is unknown.
      const reason = error instanceof Error ? error.message : String(error);
      failure = new MailApiError(`${options.api}: no answer (${reason})`, "temporary");
      retry = options.retryWithoutAnswer;
    }
    if (!retry || attempt >= policy.attempts) throw failure;
    const delay = askedWaitMs ?? policy.baseDelayMs * 2 ** (attempt - 1);
    if (waited + delay > policy.maxWaitMs)
      throw new MailApiError(
        `${failure.message} (asked to wait ${Math.ceil(delay / 1000)}s, longer than this send waits; retried later)`,
        "temporary",
        failure.status,
      );
    waited += delay;
    await wait(delay);
  }
}

/** The answer's body as JSON when it is JSON, else its text (a proxy's HTML error page). */
export async function answerBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.slice(0, 200);
  }
}

/** Base64 of bytes with web-standard APIs only (Deno and Node alike), in chunks the stack takes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let offset = 0; offset < bytes.length; offset += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  return btoa(binary);
}
