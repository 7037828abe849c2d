/**
 * The Amazon SES transport, over the SES API v2's SendEmail
 * (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html):
 * `POST /v2/email/outbound-emails`, signed with Signature Version 4 by aws4fetch.
 *
 * The mail goes as `Content.Raw`: the MIME nodemailer builds for every transport, base64-encoded
 * as the HTTPS interface requires (https://docs.aws.amazon.com/ses/latest/dg/send-email-raw.html),
 * so every header we set (List-Unsubscribe, List-Unsubscribe-Post, List-Id) arrives as it does by
 * SMTP, whatever SES's `Simple` content lets through.
 *
 * SES keeps no idempotency key: a request whose answer was lost may have sent the mail, so this
 * transport does not ask again by itself; the sender retries later, as after a lost SMTP answer.
 * Throttling (429 `TooManyRequestsException`; SES names no wait, and advises waiting before
 * retrying, https://docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas-errors.html) is waited
 * out with backoff within a bounded time: a throttled request was not accepted.
 */
import { AwsClient } from "aws4fetch";
import { ConfigError } from "../contract/variables.ts";
import {
  type Answer,
  answerBody,
  apiBaseUrl,
  callMailApi,
  DEFAULT_RETRY,
  endpoint,
  type RetryPolicy,
  toBase64,
} from "./http-api.ts";
import { formatMailbox } from "./mailbox.ts";
import type { MailMessage, Mailer } from "./mailer.ts";
import { composeMime } from "./mime.ts";
import { MailApiError } from "./smtp-failure.ts";

/**
 * SendEmail's errors that are about our account, identity or credentials, not this recipient or
 * mail: temporary, so they pause the edition instead of marking every address undeliverable.
 * Only `MessageRejected` and `BadRequestException` (and an unknown 4xx) are permanent.
 */
const ACCOUNT_ERRORS = new Set([
  "AccountSuspendedException",
  "SendingPausedException",
  "MailFromDomainNotVerifiedException",
  "LimitExceededException",
  "NotFoundException",
  "TooManyRequestsException",
  "ThrottlingException",
]);

/** The error's type: the `x-amzn-ErrorType` header of a REST-JSON answer, else the body's `__type`/`code`. */
function errorType(response: Response, body: unknown): string {
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const raw =
    response.headers.get("x-amzn-errortype") ??
    (typeof fields.__type === "string" ? fields.__type : undefined) ??
    (typeof fields.code === "string" ? fields.code : "");
  // "MessageRejected:http://internal.amazon.com/..." or "com.amazonaws...#MessageRejected".
  return raw.split(":")[0].split("#").pop() ?? "";
}

export function sesFailure(
  status: number,
  type: string,
  detail: string,
): { error: MailApiError; retry: boolean } {
  const throttled = status === 429 || type === "TooManyRequestsException" || type === "ThrottlingException";
  const temporary =
    throttled || status >= 500 || status === 401 || status === 403 || ACCOUNT_ERRORS.has(type);
  return {
    error: new MailApiError(
      `SES ${status}${type ? ` ${type}` : ""}${detail ? `: ${detail}` : ""}`,
      temporary ? "temporary" : "permanent",
      status,
    ),
    retry: throttled || status >= 500,
  };
}

async function readAnswer(response: Response): Promise<Answer> {
  if (response.ok) {
    await response.body?.cancel();
    return { ok: true };
  }
  const body = await answerBody(response);
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const detail =
    typeof fields.message === "string"
      ? fields.message
      : typeof fields.Message === "string"
        ? fields.Message
        : typeof body === "string"
          ? body
          : "";
  return { ok: false, ...sesFailure(response.status, errorType(response, body), detail) };
}

export interface SesOptions {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** SES_API_URL: a stand-in on loopback; default the region's endpoint. */
  apiUrl?: string;
  retry?: Partial<RetryPolicy>;
}

export function createSesMailer(options: SesOptions): Mailer {
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(options.region))
    throw new ConfigError("SES_REGION must be an AWS region such as eu-west-1");
  const base = apiBaseUrl(options.apiUrl ?? `https://email.${options.region}.amazonaws.com`, "SES_API_URL");
  const policy = { ...DEFAULT_RETRY, ...options.retry };
  // Service and region named, not guessed from the host (a stand-in's is 127.0.0.1); no retries
  // of its own: the loop below decides what is retried.
  const aws = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    sessionToken: options.sessionToken,
    service: "ses",
    region: options.region,
    retries: 0,
  });
  const url = endpoint(base, "/v2/email/outbound-emails");

  return {
    description: `SES ${options.region}${options.apiUrl ? ` (${base.host})` : ""}`,
    async send(message: MailMessage) {
      const body = JSON.stringify({
        // Non-ASCII in the name as RFC 2047 encoded-words, as SES requires here.
        FromEmailAddress: formatMailbox(message.from),
        Destination: { ToAddresses: [message.to] },
        Content: { Raw: { Data: toBase64(await composeMime(message)) } },
      });
      await callMailApi({
        api: "SES",
        // Signed afresh for each attempt: the signature carries its time.
        request: (signal) =>
          aws.fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body, signal }),
        read: readAnswer,
        retryWithoutAnswer: false,
        policy,
      });
    },
  };
}
