/**
 * A stand-in for Resend's HTTP API on loopback, keeping the rules Resend documents, so the
 * transport is tested against them rather than against itself:
 * - `Authorization: Bearer <key>`: none is 401 `missing_api_key`, another is 403 `invalid_api_key`
 *   (https://resend.com/docs/api-reference/errors);
 * - `POST /emails` and `POST /emails/batch`, at most 100 mails a batch, each with from, to and
 *   subject, else 422 `validation_error` (https://resend.com/docs/api-reference/emails/send-batch-emails);
 *   a `from` that is not one mailbox (`email@example.com` or `Name <email@example.com>`, read as
 *   RFC 5322 reads it) is a 422 `validation_error` too;
 * - `Idempotency-Key`: 1 to 256 characters (400 `invalid_idempotency_key`); the same key with the
 *   same body answers the first answer again without sending; with another body, 409
 *   `invalid_idempotent_request`; while the first is in flight, 409 `concurrent_idempotent_requests`
 *   (https://resend.com/docs/dashboard/emails/idempotency-keys);
 * - past `requestsPerSecond`, 429 `rate_limit_exceeded` with `retry-after` and the ratelimit-*
 *   headers (https://resend.com/docs/api-reference/rate-limit);
 * - `attachments`, each with base64 `content` and a `filename` (an inline picture with its
 *   `content_id`), on `/emails` only: the batch endpoint takes none, 422 `validation_error`
 *   (https://resend.com/docs/dashboard/emails/embed-inline-images).
 * Every mail it accepted is recorded once, so a test counts what each recipient would receive.
 */
import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import addressparser from "nodemailer/lib/addressparser/index.js";
import { readBody, serveOnLoopback } from "./loopback-http.ts";

export interface ResendMail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  text?: string;
  html?: string;
  headers: Record<string, string>;
  idempotencyKey: string | undefined;
  attachments: ResendAttachment[];
}

export interface ResendAttachment {
  filename: string;
  content_type?: string;
  content_id?: string;
  /** The decoded bytes. */
  content: Buffer;
}

export interface ResendRequest {
  path: string;
  idempotencyKey: string | undefined;
  status: number | "dropped";
  mails: number;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface ResendStandInOptions {
  apiKey?: string;
  /** Requests a second it answers before 429 (Resend's default is 2). Unset: no limit. */
  requestsPerSecond?: number;
  /** Refuses a mail to this address with 422 `validation_error`, as Resend does an invalid `to`. */
  rejectRecipient?: (address: string) => boolean;
}

export interface ResendStandIn {
  url: string;
  apiKey: string;
  /** Every mail accepted, once each, in order. */
  mails: ResendMail[];
  requests: ResendRequest[];
  /** The next `count` requests are accepted (the mails recorded) but the connection is dropped before the answer. */
  dropAnswers(count: number): void;
  /** The next `count` requests are accepted (the mails recorded) and never answered: the sender waits, as when it is killed mid-request. */
  holdAnswers(count: number): void;
  /** Answers the next `count` requests with this status and error name, taking nothing. */
  failNext(count: number, status: number, name: string): void;
  /** How many mails went to `address`, over all requests. */
  received(address: string): number;
  close(): Promise<void>;
}

interface Remembered {
  bodyHash: string;
  answer?: { status: number; body: unknown };
}

const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
};

const error = (response: ServerResponse, status: number, name: string, message: string, headers = {}) =>
  json(response, status, { statusCode: status, name, message }, headers);

/** One address with an optional name, as RFC 5322 reads the text: no list, no group. */
export function isOneMailbox(text: string): boolean {
  const parsed = addressparser(text);
  return parsed.length === 1 && "address" in parsed[0] && /^[^@\s]+@[^@\s]+$/.test(parsed[0].address);
}

export async function startResendStandIn(options: ResendStandInOptions = {}): Promise<ResendStandIn> {
  const apiKey = options.apiKey ?? `re_test_${randomUUID()}`;
  const mails: ResendMail[] = [];
  const requests: ResendRequest[] = [];
  const keys = new Map<string, Remembered>();
  const recent: number[] = [];
  let drops = 0;
  let holds = 0;
  const held: ServerResponse[] = [];
  let failures: { count: number; status: number; name: string } = { count: 0, status: 0, name: "" };

  /** Mail fields as Resend checks them; a reason when one is missing or refused. */
  function invalid(email: unknown, batch: boolean): string | undefined {
    if (typeof email !== "object" || email === null) return "each email must be an object";
    const { from, to, subject, attachments } = email as Record<string, unknown>;
    if (attachments !== undefined) {
      if (batch) return "Attachments are not supported with the batch endpoint.";
      const list = Array.isArray(attachments) ? (attachments as Record<string, unknown>[]) : [];
      if (
        list.length === 0 ||
        list.some((one) => typeof one.content !== "string" || typeof one.filename !== "string")
      )
        return "Each attachment needs `content` (base64) and a `filename`.";
    }
    if (typeof from !== "string" || !from) return "The `from` field is missing.";
    if (!isOneMailbox(from))
      return "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.";
    if (typeof subject !== "string" || !subject) return "The `subject` field is missing.";
    const recipients = Array.isArray(to) ? to : [to];
    if (recipients.length === 0 || recipients.some((address) => typeof address !== "string" || !address))
      return "The `to` field is missing.";
    if (recipients.length > 50) return "The `to` field has more than 50 addresses.";
    const refused = recipients.find((address) => options.rejectRecipient?.(address as string));
    return refused ? `Invalid \`to\` field: ${refused as string}` : undefined;
  }

  const record = (email: Record<string, unknown>, idempotencyKey: string | undefined) => {
    const mail: ResendMail = {
      id: randomUUID(),
      from: email.from as string,
      to: (Array.isArray(email.to) ? email.to : [email.to]) as string[],
      subject: email.subject as string,
      text: email.text as string | undefined,
      html: email.html as string | undefined,
      headers: (email.headers ?? {}) as Record<string, string>,
      idempotencyKey,
      attachments: ((email.attachments ?? []) as Record<string, string>[]).map((one) => ({
        filename: one.filename,
        content_type: one.content_type,
        content_id: one.content_id,
        content: Buffer.from(one.content, "base64"),
      })),
    };
    mails.push(mail);
    return { id: mail.id };
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://stand-in").pathname;
    const idempotencyKey = request.headers["idempotency-key"] as string | undefined;
    const log: ResendRequest = { path, idempotencyKey, status: 0, mails: 0, at: Date.now() };
    requests.push(log);
    const body = await readBody(request);
    const answer = (status: number, send: () => void) => {
      log.status = status;
      send();
    };

    if (request.method !== "POST" || (path !== "/emails" && path !== "/emails/batch"))
      return answer(404, () => error(response, 404, "not_found", "The requested endpoint does not exist."));
    const authorization = request.headers.authorization;
    if (!authorization?.startsWith("Bearer "))
      return answer(401, () =>
        error(response, 401, "missing_api_key", "Missing API key in the authorization header."),
      );
    if (authorization.slice("Bearer ".length) !== apiKey)
      return answer(403, () => error(response, 403, "invalid_api_key", "API key is invalid."));

    const now = Date.now();
    while (recent.length > 0 && recent[0] <= now - 1000) recent.shift();
    const limit = options.requestsPerSecond;
    if (limit !== undefined && recent.length >= limit) {
      const reset = Math.max(1, Math.ceil((recent[0] + 1000 - now) / 1000));
      return answer(429, () =>
        error(
          response,
          429,
          "rate_limit_exceeded",
          "Too many requests. You can only make 2 requests per second.",
          {
            "retry-after": String(reset),
            "ratelimit-limit": String(limit),
            "ratelimit-remaining": "0",
            "ratelimit-reset": String(reset),
          },
        ),
      );
    }
    recent.push(now);

    if (failures.count > 0) {
      failures.count -= 1;
      const { status, name } = failures;
      return answer(status, () => error(response, status, name, `stand-in: ${name}`));
    }

    if (idempotencyKey !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 256))
      return answer(400, () =>
        error(response, 400, "invalid_idempotency_key", "The key must be between 1-256 chars."),
      );
    const bodyHash = createHash("sha256").update(path).update("\n").update(body).digest("hex");
    const remembered = idempotencyKey === undefined ? undefined : keys.get(idempotencyKey);
    if (remembered) {
      if (remembered.bodyHash !== bodyHash)
        return answer(409, () =>
          error(
            response,
            409,
            "invalid_idempotent_request",
            "Same idempotency key used with a different request payload.",
          ),
        );
      if (!remembered.answer)
        return answer(409, () =>
          error(
            response,
            409,
            "concurrent_idempotent_requests",
            "Same idempotency key used while original request is still in progress.",
          ),
        );
      const { status, body: first } = remembered.answer;
      // A lost answer can be lost again: the network does not know it is a replay.
      if (drops > 0) {
        drops -= 1;
        log.status = "dropped";
        request.socket.destroy();
        return;
      }
      return answer(status, () => json(response, status, first));
    }

    let payload: unknown;
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      return answer(422, () => error(response, 422, "validation_error", "Invalid JSON body."));
    }
    const emails = path === "/emails/batch" ? payload : [payload];
    if (!Array.isArray(emails) || emails.length === 0)
      return answer(422, () =>
        error(response, 422, "validation_error", "The batch must be a non-empty array."),
      );
    if (emails.length > 100)
      return answer(422, () =>
        error(response, 422, "validation_error", "Too many emails in a batch: the maximum is 100."),
      );
    const problem = emails
      .map((email) => invalid(email, path === "/emails/batch"))
      .find((reason) => reason !== undefined);
    if (problem) return answer(422, () => error(response, 422, "validation_error", problem));

    const entry: Remembered = { bodyHash };
    if (idempotencyKey !== undefined) keys.set(idempotencyKey, entry);
    const ids = emails.map((email) => record(email as Record<string, unknown>, idempotencyKey));
    log.mails = ids.length;
    entry.answer = { status: 200, body: path === "/emails/batch" ? { data: ids } : ids[0] };
    if (drops > 0) {
      drops -= 1;
      log.status = "dropped";
      request.socket.destroy();
      return;
    }
    if (holds > 0) {
      holds -= 1;
      log.status = "dropped";
      held.push(response);
      return;
    }
    return answer(200, () => json(response, 200, entry.answer?.body));
  }

  const server = await serveOnLoopback(handle);
  return {
    url: server.url,
    apiKey,
    mails,
    requests,
    dropAnswers(count) {
      drops = count;
    },
    holdAnswers(count) {
      holds = count;
    },
    failNext(count, status, name) {
      failures = { count, status, name };
    },
    received: (address) => mails.filter((mail) => mail.to.includes(address)).length,
    close: () => {
      for (const response of held.splice(0)) response.socket?.destroy();
      return server.close();
    },
  };
}
