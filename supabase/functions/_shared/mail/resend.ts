/**
 * The Resend transport, over its HTTP API (https://resend.com/docs/api-reference): one mail per
 * `POST /emails`, up to 100 per `POST /emails/batch`
 * (https://resend.com/docs/api-reference/emails/send-batch-emails), each mail with its own
 * headers (List-Unsubscribe, List-Unsubscribe-Post, List-Id), so a batch loses none.
 *
 * Every request carries an `Idempotency-Key` (https://resend.com/docs/dashboard/emails/idempotency-keys):
 * Resend keeps a key 24 hours and answers a repeat of the same request with the first answer
 * without sending again, but refuses the same key with another body (409
 * `invalid_idempotent_request`). So the body is serialized once per call and the very same bytes
 * go out on every retry; the senders give the same message the same key on their later retries.
 *
 * Pace: Resend allows 2 requests per second per team by default
 * (https://resend.com/docs/api-reference/rate-limit), RESEND_REQUESTS_PER_SECOND here; past it,
 * 429 with `retry-after`, which this transport waits out within a bounded time.
 */
import { createMailPace, type MailPace } from "../effect-sending/delivery-decisions.ts";
import { sha256Hex } from "../subscriptions/tokens.ts";
import {
  type Answer,
  answerBody,
  apiBaseUrl,
  callMailApi,
  DEFAULT_RETRY,
  endpoint,
  retryAfterMs,
  type RetryPolicy,
  toBase64,
} from "./http-api.ts";
import { formatMailbox } from "./mailbox.ts";
import type { MailMessage, Mailer } from "./mailer.ts";
import { MailApiError } from "./smtp-failure.ts";

/** Resend's documented most per `/emails/batch` request. */
export const RESEND_BATCH_SIZE = 100;
/** Resend's documented longest idempotency key. */
const MAX_KEY_LENGTH = 256;

/**
 * Resend's error names (https://resend.com/docs/api-reference/errors) that are about our account,
 * key or sender, not this recipient or mail: temporary, so a wrong key pauses the edition instead
 * of marking every address of the list undeliverable (the SMTP rule for AUTH and MAIL FROM).
 */
const ACCOUNT_ERRORS = new Set([
  "missing_api_key",
  "invalid_api_key",
  "restricted_api_key",
  "invalid_from_address",
  "invalid_access",
  "invalid_region",
  "daily_quota_exceeded",
  "monthly_quota_exceeded",
  "invalid_idempotency_key",
]);

/** Asked again at once: the limit of the moment, a request still in flight with this key, Resend's own fault. */
const retryNow = (status: number, name: string) =>
  status === 429
    ? name !== "daily_quota_exceeded" && name !== "monthly_quota_exceeded"
    : status === 409
      ? name === "concurrent_idempotent_requests"
      : status >= 500;

/**
 * An error answer as a `MailApiError`: temporary for 429, 5xx, a request still in flight and the
 * account's errors; every other 4xx (a `validation_error` about the recipient or the mail, the
 * same key with another body) is permanent: trying the same request again is refused again.
 */
export function resendFailure(status: number, body: unknown): { error: MailApiError; retry: boolean } {
  const fields =
    typeof body === "object" && body !== null ? (body as { name?: unknown; message?: unknown }) : {};
  const name = typeof fields.name === "string" ? fields.name : "";
  const detail = typeof fields.message === "string" ? fields.message : typeof body === "string" ? body : "";
  const temporary =
    status === 429 ||
    status >= 500 ||
    status === 401 ||
    status === 403 ||
    status === 404 ||
    status === 405 ||
    ACCOUNT_ERRORS.has(name) ||
    name === "concurrent_idempotent_requests";
  const error = new MailApiError(
    `Resend ${status}${name ? ` ${name}` : ""}${detail ? `: ${detail}` : ""}`,
    temporary ? "temporary" : "permanent",
    status,
    name || undefined,
  );
  return { error, retry: retryNow(status, name) };
}

async function readAnswer(response: Response): Promise<Answer> {
  if (response.ok) {
    await response.body?.cancel();
    return { ok: true };
  }
  const { error, retry } = resendFailure(response.status, await answerBody(response));
  return { ok: false, error, retry, retryAfterMs: retryAfterMs(response.headers.get("retry-after")) };
}

/**
 * One mail as Resend takes it: the same fields as every transport, its headers untouched, and its
 * inline pictures as attachments with their `content_id` (the HTML names them `cid:...`).
 */
const resendEmail = ({ from, to, subject, text, html, headers, inlineImages }: MailMessage) => ({
  from: formatMailbox(from),
  to: [to],
  subject,
  html,
  text,
  headers,
  ...(inlineImages?.length
    ? {
        attachments: inlineImages.map((image) => ({
          content: toBase64(image.content),
          filename: image.filename,
          content_type: image.contentType,
          content_id: image.contentId,
        })),
      }
    : {}),
});

/** A key Resend takes (1 to 256 characters): ours are short; a longer one is hashed, stably. */
async function usableKey(key: string): Promise<string> {
  if (key.length > 0 && key.length <= MAX_KEY_LENGTH) return key;
  return `sha256-${await sha256Hex(key)}`;
}

export interface ResendOptions {
  apiKey: string;
  /** RESEND_API_URL: https://api.resend.com, or a stand-in on loopback. */
  apiUrl: string;
  /** Requests per second to the account (0: no limit). */
  requestsPerSecond: number;
  /** The account's pace shared by every process (the database's); else this process's own. */
  pace?: MailPace;
  retry?: Partial<RetryPolicy>;
}

export function createResendMailer(options: ResendOptions): Mailer {
  const base = apiBaseUrl(options.apiUrl, "RESEND_API_URL");
  const policy = { ...DEFAULT_RETRY, ...options.retry };
  const pace = options.pace ?? createMailPace(options.requestsPerSecond);

  async function post(path: string, payload: unknown, key: string): Promise<void> {
    // Serialized once: a retry must be the same bytes under the same key.
    const body = JSON.stringify(payload);
    const headers = {
      Authorization: `Bearer ${options.apiKey}`,
      "Content-Type": "application/json",
      "Idempotency-Key": await usableKey(key),
    };
    await callMailApi({
      api: "Resend",
      request: (signal) => fetch(endpoint(base, path), { method: "POST", headers, body, signal }),
      read: readAnswer,
      retryWithoutAnswer: true,
      pace: () => pace.take(),
      policy,
    });
  }

  return {
    description: `Resend ${base.host}${options.requestsPerSecond > 0 ? `, ${options.requestsPerSecond} requests/s` : ""}`,
    batchSize: RESEND_BATCH_SIZE,
    // Resend keeps a key 24 hours; an hour less leaves room for clocks and the last batch's send.
    keepsIdempotencyKeysMs: 23 * 3_600_000,
    async send(message) {
      // A mail without a key (a test send) still gets one, so this call's own retries are replays.
      await post("/emails", resendEmail(message), message.idempotencyKey ?? crypto.randomUUID());
    },
    async sendBatch(messages, idempotencyKey) {
      if (messages.length === 0) return;
      if (messages.length > RESEND_BATCH_SIZE)
        throw new Error(`Resend takes at most ${RESEND_BATCH_SIZE} mails a batch (got ${messages.length})`);
      // https://resend.com/docs/dashboard/emails/embed-inline-images: not through the batch endpoint.
      if (messages.some((message) => message.inlineImages?.length))
        throw new Error("Resend's batch endpoint takes no attachments: send a mail with pictures by itself");
      await post("/emails/batch", messages.map(resendEmail), idempotencyKey);
    },
  };
}
