/**
 * Mail events as the providers send them, signed with keys the tests make: Resend's Standard
 * Webhooks signature, SNS's RSA signature with a certificate made by openssl (served through the
 * injected fetch, as if from sns.<region>.amazonaws.com), and the raw DSN and ARF mails a relay
 * returns. Each helper builds exactly what the provider's documentation describes.
 */
import { createSign } from "node:crypto";
import { selfSignedCertificate } from "./self-signed.ts";
import type { SqlQueryable } from "../../supabase/functions/_shared/db/sql-executor.ts";
import {
  bounceAddress,
  type BounceMailKind,
  parseBounceAddress,
} from "../../supabase/functions/_shared/mail/bounce-token.ts";
import { resendSignature } from "../../supabase/functions/_shared/mail-events/resend.ts";
import { snsStringToSign } from "../../supabase/functions/_shared/mail-events/ses.ts";

export const RESEND_SECRET = `whsec_${Buffer.from("a test webhook secret, 32 bytes!").toString("base64")}`;
export const DSN_SECRET = "dsn-secret-for-the-tests-0123456789abcdef";
export const TOPIC_ARN = "arn:aws:sns:eu-west-1:123456789012:newsletter-events";
export const CERT_URL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem";
export const BOUNCE_ADDRESS = "bounces@mail.thepurposeeffect.example";
export const BOUNCE_KEY = "bounce-token-key-for-the-tests-0123456789";

/** The settings that turn every source on, and the bounce address whose tokens the dsn route checks. */
export const MAIL_EVENTS_ENV = {
  RESEND_WEBHOOK_SECRET: RESEND_SECRET,
  SES_TOPIC_ARN: TOPIC_ARN,
  DSN_WEBHOOK_SECRET: DSN_SECRET,
  BOUNCE_ADDRESS,
  BOUNCE_TOKEN_KEY: BOUNCE_KEY,
};

/**
 * The envelope sender our mail of `kind` to `email` had (`bounces+<token>@…`), the address its
 * bounce comes back to: what the sender computes, for readers the tests seed without mailing them.
 */
export async function bounceAddressOf(
  db: SqlQueryable,
  email: string,
  mail: BounceMailKind = "effect",
): Promise<string> {
  const [row] = await db.query<{ id: string }>(`select id from subscribers where lower(email) = lower($1)`, [
    email,
  ]);
  if (!row) throw new Error(`no subscriber ${email}`);
  const parsed = parseBounceAddress(BOUNCE_ADDRESS);
  if (typeof parsed === "string") throw new Error(parsed);
  return bounceAddress({ ...parsed, key: BOUNCE_KEY }, { mail, subscriberId: row.id });
}

/** A request to post: its headers and body. */
export interface EventRequest {
  headers: Record<string, string>;
  body: string;
}

export async function resendEvent(
  payload: object,
  options: { id?: string; at?: Date; secret?: string } = {},
): Promise<EventRequest> {
  const id = options.id ?? `msg_${Math.random().toString(36).slice(2)}`;
  const timestamp = String(Math.floor((options.at ?? new Date()).getTime() / 1000));
  const body = JSON.stringify(payload);
  const signature = await resendSignature(options.secret ?? RESEND_SECRET, id, timestamp, Buffer.from(body));
  return {
    headers: {
      "content-type": "application/json",
      "svix-id": id,
      "svix-timestamp": timestamp,
      "svix-signature": signature,
    },
    body,
  };
}

export const resendBounce = (to: string, type = "Permanent", message = "550 5.1.1 user unknown") => ({
  type: "email.bounced",
  created_at: new Date().toISOString(),
  data: {
    email_id: "4ef9a417",
    to: [to],
    subject: "Effect of the Day",
    bounce: { type, subType: "General", message },
  },
});

export const resendComplaint = (to: string) => ({
  type: "email.complained",
  created_at: new Date().toISOString(),
  data: { email_id: "4ef9a418", to: [to], subject: "Effect of the Day" },
});

/** An RSA key and a self-signed certificate for it, as SNS's signing certificate. */
export interface SigningKey {
  privateKey: string;
  certificate: string;
}

export function makeSigningKey(): SigningKey {
  const { key, cert } = selfSignedCertificate("/CN=sns.amazonaws.com");
  return { privateKey: key, certificate: cert };
}

/** An SNS message of `type`, signed (SignatureVersion 2, SHA-256) with `key`. */
export function snsMessage(
  key: SigningKey,
  type: "Notification" | "SubscriptionConfirmation",
  fields: Record<string, string>,
  options: { at?: Date; topic?: string; certUrl?: string; version?: "1" | "2" } = {},
): EventRequest {
  const message: Record<string, string> = {
    Type: type,
    MessageId: `sns-${Math.random().toString(36).slice(2)}`,
    TopicArn: options.topic ?? TOPIC_ARN,
    Timestamp: (options.at ?? new Date()).toISOString(),
    SignatureVersion: options.version ?? "2",
    SigningCertURL: options.certUrl ?? CERT_URL,
    ...fields,
  };
  const signer = createSign(message.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256");
  signer.update(snsStringToSign(message));
  message.Signature = signer.sign(key.privateKey, "base64");
  return {
    headers: { "content-type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": type },
    body: JSON.stringify(message),
  };
}

export const sesBounce = (
  address: string,
  bounceType = "Permanent",
  status = "5.1.1",
  diagnosticCode = `smtp; 550 ${status} user unknown`,
) =>
  JSON.stringify({
    notificationType: "Bounce",
    bounce: {
      bounceType,
      bounceSubType: bounceType === "Permanent" ? "General" : "MailboxFull",
      bouncedRecipients: [{ emailAddress: address, status, diagnosticCode }],
      timestamp: new Date().toISOString(),
    },
    mail: { messageId: "0100018c-ses", destination: [address] },
  });

export const sesComplaint = (address: string) =>
  JSON.stringify({
    notificationType: "Complaint",
    complaint: {
      complainedRecipients: [{ emailAddress: address }],
      complaintFeedbackType: "abuse",
      timestamp: new Date().toISOString(),
    },
    mail: { messageId: "0100018c-ses", destination: [address] },
  });

/** A fetch that serves `key`'s certificate at CERT_URL and records every URL it is asked for. */
export function snsFetch(key: SigningKey) {
  const requested: string[] = [];
  const fetch = async (url: string) => {
    requested.push(url);
    if (url === CERT_URL) return new Response(key.certificate, { status: 200 });
    if (url.startsWith("https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription"))
      return new Response("<ConfirmSubscriptionResponse/>", { status: 200 });
    return new Response("not found", { status: 404 });
  };
  return { fetch, requested };
}

const CRLF = (lines: string[]) => lines.join("\r\n");

/**
 * An RFC 3464 delivery status notification for `recipient` (`status` 5.1.1: a permanent failure).
 * `finalRecipient` and `originalRecipient` are the fields' raw values (`null` leaves one out);
 * `singleBlock` writes the recipient's fields with no per-message block before them (McAfee);
 * `global` makes it RFC 6533's `message/global-delivery-status` with `message/global-headers`;
 * `original` are the returned original's header lines, `outer` more header lines of the report;
 * `diagnostic` the Diagnostic-Code's value after `smtp; ` (`null` leaves the field out), `text` the
 * report's human-readable part.
 */
export function dsnMail(
  recipient: string,
  options: {
    status?: string | null;
    action?: string;
    messageId?: string;
    diagnostic?: string | null;
    text?: string;
    finalRecipient?: string | null;
    originalRecipient?: string | null;
    singleBlock?: boolean;
    global?: boolean;
    original?: string[];
    outer?: string[];
    /** The report's To (our envelope sender, as a relay addresses it), else the newsletter's address. */
    to?: string;
    /** A `Delivered-To:` header, as the mailbox's server adds it. */
    deliveredTo?: string;
    /** More failed recipients after `recipient`, each in its own per-recipient block. */
    more?: readonly string[];
  } = {},
): string {
  const status = options.status === undefined ? "5.1.1" : options.status;
  const finalRecipient =
    options.finalRecipient === undefined ? `rfc822; ${recipient}` : options.finalRecipient;
  const originalRecipient =
    options.originalRecipient === undefined ? `rfc822;${recipient}` : options.originalRecipient;
  const reply = (status ?? "5").startsWith("5") ? "550" : "452";
  return CRLF([
    ...(options.deliveredTo ? [`Delivered-To: ${options.deliveredTo}`] : []),
    "From: Mail Delivery System <MAILER-DAEMON@relay.example.net>",
    `To: ${options.to ?? "newsletter@thepurposeeffect.example"}`,
    ...(options.outer ?? []),
    "Subject: Undelivered Mail Returned to Sender",
    `Message-ID: ${options.messageId ?? `<dsn-${Math.random().toString(36).slice(2)}@relay.example.net>`}`,
    `Date: ${new Date().toUTCString()}`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="BOUNDARY"',
    "",
    "--BOUNDARY",
    "Content-Type: text/plain; charset=us-ascii",
    "",
    options.text ?? "I'm sorry to have to inform you that your message could not be delivered.",
    "",
    "--BOUNDARY",
    `Content-Type: message/${options.global ? "global-" : ""}delivery-status`,
    "",
    ...(options.singleBlock
      ? []
      : ["Reporting-MTA: dns; relay.example.net", "Arrival-Date: Tue, 24 Nov 2026 06:00:58 +0000", ""]),
    ...(finalRecipient === null ? [] : [`Final-Recipient: ${finalRecipient}`]),
    ...(originalRecipient === null ? [] : [`Original-Recipient: ${originalRecipient}`]),
    `Action: ${options.action ?? "failed"}`,
    ...(status === null ? [] : [`Status: ${status}`]),
    "Remote-MTA: dns; mx.example.com",
    ...(options.diagnostic === null
      ? []
      : [
          `Diagnostic-Code: smtp; ${options.diagnostic ?? `${reply} ${status ?? ""} mailbox`}`,
          "    unavailable",
        ]),
    "",
    ...(options.more ?? []).flatMap((other) => [
      `Final-Recipient: rfc822; ${other}`,
      `Action: ${options.action ?? "failed"}`,
      `Status: ${status ?? "5.1.1"}`,
      "",
    ]),
    "--BOUNDARY",
    `Content-Type: ${options.global ? "message/global-headers" : "text/rfc822-headers"}`,
    "",
    "From: Effect of the Day <newsletter@thepurposeeffect.example>",
    `To: ${recipient}`,
    "Subject: Effect of the Day",
    ...(options.original ?? []),
    "",
    "--BOUNDARY--",
    "",
  ]);
}

/** An RFC 5965 abuse report, naming its recipient only in the reported mail's To when `inHeadersOnly`. */
export function arfMail(
  recipient: string,
  options: {
    inHeadersOnly?: boolean;
    feedbackType?: string;
    /** The report's To, else the newsletter's abuse address. */
    to?: string;
    /** The reported mail's `List-Unsubscribe` value, as our mail carried it. */
    listUnsubscribe?: string;
  } = {},
): string {
  return CRLF([
    "From: Feedback Loop <fbl@isp.example.net>",
    `To: ${options.to ?? "abuse@thepurposeeffect.example"}`,
    "Subject: FW: Effect of the Day",
    `Message-ID: <arf-${Math.random().toString(36).slice(2)}@isp.example.net>`,
    `Date: ${new Date().toUTCString()}`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=feedback-report; boundary="PART"',
    "",
    "--PART",
    "Content-Type: text/plain",
    "",
    "This is an email abuse report.",
    "",
    "--PART",
    "Content-Type: message/feedback-report",
    "",
    `Feedback-Type: ${options.feedbackType ?? "abuse"}`,
    "User-Agent: SomeGenerator/1.0",
    "Version: 1",
    ...(options.inHeadersOnly ? [] : [`Original-Rcpt-To: <${recipient}>`]),
    "",
    "--PART",
    "Content-Type: message/rfc822",
    "",
    "From: Effect of the Day <newsletter@thepurposeeffect.example>",
    `To: ${recipient}`,
    "Subject: Effect of the Day",
    ...(options.listUnsubscribe ? [`List-Unsubscribe: ${options.listUnsubscribe}`] : []),
    "",
    "Today's Effect.",
    "",
    "--PART--",
    "",
  ]);
}

/**
 * An abuse report shaped as RFC 5965's own example (its appendix B.2): the reported mail
 * (`original`, a whole raw mail, as the reader's provider stored it) inline, `message/rfc822` with
 * `Content-Disposition: inline`, after the feedback report; `partType` another type for it
 * (`message/global`), `originalRcptTo` and `originalMailFrom` the report's fields when given.
 */
export function rfc5965Report(
  original: string,
  options: { originalRcptTo?: string; originalMailFrom?: string; partType?: string } = {},
): string {
  return CRLF([
    "From: <abusedesk@isp.example.com>",
    `Date: ${new Date().toUTCString()}`,
    "Subject: FW: Effect of the Day",
    "To: <abuse@thepurposeeffect.example>",
    `Message-ID: <fbl-${Math.random().toString(36).slice(2)}@isp.example.com>`,
    "MIME-Version: 1.0",
    "Content-Type: multipart/report; report-type=feedback-report;",
    '     boundary="part1_13d.2e68ed54_boundary"',
    "",
    "--part1_13d.2e68ed54_boundary",
    'Content-Type: text/plain; charset="US-ASCII"',
    "Content-Transfer-Encoding: 7bit",
    "",
    "This is an email abuse report for an email message received from IP",
    "192.0.2.1 on Thu, 8 Mar 2005 14:00:00 EDT.  For more information",
    "about this format please see http://www.mipassoc.org/arf/.",
    "",
    "--part1_13d.2e68ed54_boundary",
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: SomeGenerator/1.0",
    "Version: 1",
    ...(options.originalMailFrom ? [`Original-Mail-From: <${options.originalMailFrom}>`] : []),
    ...(options.originalRcptTo ? [`Original-Rcpt-To: <${options.originalRcptTo}>`] : []),
    "Arrival-Date: Thu, 8 Mar 2005 14:00:00 EDT",
    "Reporting-MTA: dns; mail.isp.example.com",
    "Source-IP: 192.0.2.1",
    "",
    "--part1_13d.2e68ed54_boundary",
    `Content-Type: ${options.partType ?? "message/rfc822"}`,
    "Content-Disposition: inline",
    "",
    original.replace(/\r?\n/g, "\r\n"),
    "--part1_13d.2e68ed54_boundary--",
    "",
  ]);
}
