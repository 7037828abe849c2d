/**
 * The one mail interface: a `Mailer` takes a finished `MailMessage` and resolves once the mail is
 * accepted. Every mail (the confirmation, the Effect, a test send) goes through one, whichever
 * transport `create-mailer.ts` chose: SMTP (`smtp.ts`, pooled for the Effect's lists), Resend's API
 * (`resend.ts`), Amazon SES (`ses-mailer.ts`), the log (`log-mailer.ts`, where none is set) or the
 * local stack's outbox folder (server/outbox-mailer.ts). What a mail says is decided before it
 * reaches them, so a transport never knows which kind it carries. `meteredMailer` charges each
 * mail to a worker's estimated CPU (cpu-clock.ts).
 *
 * A mail may carry pictures shown inline (the owner's weekly report's chart): each transport sends
 * them as its protocol does, SMTP, SES and the outbox as MIME `multipart/related` parts with a
 * `Content-ID` (nodemailer's `cid`), Resend as `attachments` with `content_id`
 * (https://resend.com/docs/dashboard/emails/embed-inline-images).
 */

import type { MailCost, Work } from "../cpu-clock.ts";
import type { Mailbox } from "./mailbox.ts";

/** A picture the HTML part shows where it names `cid:<contentId>`. */
export interface InlineImage {
  /** Unique within the mail, fewer than 128 characters (Resend's limit): `weekly-chart`. */
  contentId: string;
  filename: string;
  contentType: "image/png";
  content: Uint8Array;
}

export interface MailMessage {
  /** The sender as its two parts: each transport writes it as one mailbox (`mailbox.ts`). */
  from: Mailbox;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /**
   * The envelope sender (SMTP `MAIL FROM`, the delivered mail's `Return-Path`), where the
   * recipient's server returns the mail: `bounces+<token>@mail.example` for a subscriber's mail
   * when BOUNCE_ADDRESS is set (`bounce-token.ts`). Unset: the From address. Only SMTP and the
   * outbox use it; an HTTP API (Resend, SES) sets its own and names the recipient in its signed events.
   */
  envelopeFrom?: string;
  /**
   * One line a transport that does not deliver (the outbox, the log) prints so a developer can
   * act on the mail without opening it, e.g. `confirm: https://...`. Never printed by SMTP.
   */
  preview?: string;
  /** Names the mail where a transport keeps it (the outbox's file name), e.g. `effect-<delivery id>`. */
  reference?: string;
  /**
   * The same for every attempt at the same mail, never for another (`effect-<delivery id>`,
   * `mail-job-<job id>-<attempt's mail>`): an HTTP API that keeps keys (Resend, 24 hours) sends a
   * retried request once. SMTP and the folders ignore it.
   */
  idempotencyKey?: string;
  /** Pictures the HTML part shows inline (`<img src="cid:...">`); never for the Effect's batches. */
  inlineImages?: readonly InlineImage[];
}

export interface Mailer {
  /** For the start-up log: "SMTP smtp.example.com:465", "outbox .data/outbox". */
  readonly description: string;
  send(message: MailMessage): Promise<void>;
  /**
   * A transport whose API takes many mails in one request (Resend's `/emails/batch`): at most
   * `batchSize` mails, accepted or refused together, the request retried with `idempotencyKey`.
   * Without it, a batch is sent one mail at a time.
   */
  sendBatch?(messages: MailMessage[], idempotencyKey: string): Promise<void>;
  readonly batchSize?: number;
  /**
   * How long the API keeps an idempotency key (Resend: 24 hours). Within it, a request left in
   * doubt by a crash is simply sent again with its key and the same bytes; the API sends it once.
   */
  readonly keepsIdempotencyKeysMs?: number;
  /** What a mail costs this transport in CPU, for a worker that estimates its CPU (`cpu-clock.ts`). */
  readonly cpuCost?: MailCost;
  close?(): Promise<void>;
}

/** `mailer`, each mail charged to `clock` as it is handed over (for an `estimate` clock). */
export function meteredMailer(mailer: Mailer, clock: { charge(work: Work): void } | undefined): Mailer {
  if (!clock) return mailer;
  const size = (message: MailMessage) => message.html.length + message.text.length;
  const sendBatch = mailer.sendBatch?.bind(mailer);
  return {
    description: mailer.description,
    batchSize: mailer.batchSize,
    keepsIdempotencyKeysMs: mailer.keepsIdempotencyKeysMs,
    cpuCost: mailer.cpuCost,
    send(message) {
      clock.charge({ kind: "mails", cost: mailer.cpuCost, sizes: [size(message)] });
      return mailer.send(message);
    },
    sendBatch: sendBatch
      ? (messages, idempotencyKey) => {
          clock.charge({ kind: "mails", cost: mailer.cpuCost, sizes: messages.map(size) });
          return sendBatch(messages, idempotencyKey);
        }
      : undefined,
    close: mailer.close?.bind(mailer),
  };
}
