/**
 * The SMTP transport, through nodemailer: `smtp://user:pass@host:587` (STARTTLS when offered) or
 * `smtps://user:pass@host:465` (implicit TLS, the only option on Supabase, which blocks 25 and
 * 587). Query parameters in the URL are nodemailer options, e.g. `?tls.rejectUnauthorized=false`.
 *
 * A subscriber's mail carries its own envelope sender (`envelopeFrom`, `bounce-token.ts`): the
 * `MAIL FROM` the recipient's server returns it to.
 *
 * `pooled`: one nodemailer pool, so the Effect's list of thousands reuses a few connections
 * instead of opening one per mail. Its pace is set by the sender's one global rate, not by
 * nodemailer's per-connection limits.
 */
import nodemailer from "nodemailer";
import { parseConnectionUrl } from "nodemailer/lib/shared/index.js";
import { ConfigError, parseUrlSetting, URL_CREDENTIALS_HINT } from "../contract/variables.ts";
import { toBase64 } from "./http-api.ts";
import type { MailMessage, Mailer } from "./mailer.ts";

/**
 * Fail fast and retry later: the job stays queued, so waiting minutes on a dead server (nodemailer's
 * defaults are 2 minutes to connect and 10 of silence) only delays the other mails and shutdown.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * A message as nodemailer takes it: the same MIME on the wire and in the outbox's files. The sender
 * as name and address, which nodemailer quotes or encodes itself: never a string it would parse.
 * Inline pictures become attachments with a `cid`, which nodemailer puts beside the HTML part in a
 * `multipart/related`; their bytes go as base64 text, which nodemailer takes on Deno as on Node.
 */
export const nodemailerFields = ({ from, to, subject, text, html, headers, inlineImages }: MailMessage) => ({
  from: { name: from.name, address: from.address },
  to,
  subject,
  text,
  html,
  headers,
  ...(inlineImages?.length
    ? {
        attachments: inlineImages.map((image) => ({
          filename: image.filename,
          contentType: image.contentType,
          content: toBase64(image.content),
          encoding: "base64",
          cid: image.contentId,
          contentDisposition: "inline" as const,
        })),
      }
    : {}),
});

export interface SmtpOptions {
  timeouts?: typeof SMTP_TIMEOUTS;
  /** Keep up to this many connections open and reuse them (the Effect's sends). */
  pooled?: { maxConnections: number };
}

/**
 * SMTP_URL, read for nodemailer. It holds the password, so no error here repeats it, nor lets the
 * URL parser's own error through (Deno's says `Invalid URL: 'smtps://user:<password>@…'`).
 */
function readSmtpUrl(smtpUrl: string): { url: URL; connection: ReturnType<typeof parseConnectionUrl> } {
  const url = parseUrlSetting(
    "SMTP_URL",
    smtpUrl,
    `write it as smtps://user:password@host:465, where ${URL_CREDENTIALS_HINT}`,
  );
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:")
    throw new ConfigError("SMTP_URL must start with smtp:// or smtps://");
  if (!url.hostname) throw new ConfigError("SMTP_URL names no host: smtps://user:password@host:465");
  try {
    return { url, connection: parseConnectionUrl(smtpUrl) };
  } catch {
    throw new ConfigError(`SMTP_URL cannot be read: ${URL_CREDENTIALS_HINT}`);
  }
}

export function createSmtpMailer(smtpUrl: string, options: SmtpOptions = {}): Mailer {
  const { url, connection } = readSmtpUrl(smtpUrl);
  const { pooled } = options;
  // Not `{ url, ...timeouts }`: given a `url`, nodemailer drops every other option. The URL's own
  // query options (`?socketTimeout=...`) still win over these defaults.
  const transport = nodemailer.createTransport({
    ...(options.timeouts ?? SMTP_TIMEOUTS),
    ...(pooled ? { pool: true, maxConnections: pooled.maxConnections, maxMessages: Infinity } : {}),
    ...connection,
  });
  const port = url.port || (url.protocol === "smtps:" ? "465" : "587");
  return {
    description: `SMTP ${url.hostname}:${port}${url.protocol === "smtps:" ? " (TLS)" : ""}${pooled ? `, ${pooled.maxConnections} connections` : ""}`,
    async send(message: MailMessage): Promise<void> {
      await transport.sendMail({
        ...nodemailerFields(message),
        // VERP: the recipient's server returns the mail to the address that names this mail.
        ...(message.envelopeFrom ? { envelope: { from: message.envelopeFrom, to: message.to } } : {}),
      });
    },
    async close(): Promise<void> {
      transport.close();
    },
  };
}
