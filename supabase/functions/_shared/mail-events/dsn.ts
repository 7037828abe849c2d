/**
 * A bounce or complaint as a mail, for a plain SMTP relay whose reports come back to a mailbox:
 * an inbound-mail route (Cloudflare Email Routing, Mailgun routes, a procmail `curl`) posts the raw
 * message here with `Authorization: Bearer DSN_WEBHOOK_SECRET`, checked by the route (`routes.ts`)
 * before the body is read. `returned-mail.ts` reads its MIME (the report part, the returned
 * original's headers, where the report was addressed); this module decides what each report means:
 *
 * - an RFC 3464 delivery status notification: each recipient whose Action is `failed` is one
 *   event, its kind from its status code by RFC 3463 and, where the code does not decide, from its
 *   words (`rfc3463.ts`, `failure-text.ts`: the address or its domain gone suppresses at once;
 *   X.7.x, about the sender, is a `sender_refusal` that never touches the reader); the report's own
 *   text is read for a lone failed recipient whose fields have no words, and whether it shows the
 *   refusal came after DATA. A failed block whose address cannot be read is kept with none, for
 *   the proof of whose mail it was to name; `delayed`, `delivered`, `relayed` and `expanded`
 *   recipients are only news and ignored;
 * - an RFC 5965 feedback report (ARF): `abuse`, `fraud`, `virus`, `other` and `opt-out` are the
 *   reader's complaint, for each `Original-Rcpt-To` or else the returned original's To;
 *   `auth-failure` (RFC 6591) is a `sender_refusal` (our SPF or DKIM failed there); `not-spam` is
 *   ignored.
 *
 * A mail that is no report (an out-of-office reply, a plain-text bounce without a report part), or
 * a report that names no one, is answered 2xx as ignored (an inbound route retries a 4xx) and
 * logged; only a body that is no mail at all is a 400.
 *
 * `readDsnEvent` returns the events with the `ReturnedMail` they came from, so that a check of
 * whose mail it was (the VERP token, the original's List-Unsubscribe) can read the same fields.
 * The event id is the report's Message-ID (with the recipient's place), else a hash of the body.
 * There is no timestamp to check: the bearer secret is the signature, and a replay changes nothing.
 */
import { Buffer } from "node:buffer";
import { Refusal } from "../http/answers.ts";
import { sha256Hex } from "../subscriptions/tokens.ts";
import {
  COMPLAINT_FEEDBACK_TYPES,
  DETAIL_CHARS,
  type MailEvent,
  type SourceReading,
  SENDER_FEEDBACK_TYPES,
} from "./mail-event.ts";
import { NotAMail, readReturnedMail, type ReturnedMail } from "./returned-mail.ts";
import { classifyFailure } from "./rfc3463.ts";

/** A report's own text showing the refusal came after DATA: sendmail's transcript, Postfix's words. */
const AFTER_DATA_TEXT = /^>>> DATA\b|in reply to end of\s+DATA\s+command/im;

/** A report written by a mail filter in front of the mailbox (`SurfControl E-mail Filter`, `m-FILTER`). */
const BY_A_FILTER = /\bfilter\b/i;

/** What the dsn route made of a mail: the events, and the report they were read from. */
export interface DsnReading extends SourceReading {
  report?: ReturnedMail;
}

/** The events a read report means (no I/O): one per failed recipient, or per complaining reader. */
export function dsnEvents(report: ReturnedMail, baseId: string, now: Date): SourceReading {
  const occurredAt = report.date ?? now;
  const event = (index: number, kind: MailEvent["kind"], recipient: string, detail: string): MailEvent => ({
    source: "dsn",
    id: `${baseId}#${index}`,
    kind,
    recipient,
    occurredAt,
    detail,
  });

  if (report.deliveryStatus) {
    const events: MailEvent[] = [];
    const failed = report.deliveryStatus.recipients.filter((recipient) => recipient.action === "failed");
    report.deliveryStatus.recipients.forEach((recipient, index) => {
      // A failed block whose address cannot be read (`Final-Recipient: rfc822; @mx.example.org`)
      // is kept with none: only a proof of whose mail it was (report-trust.ts) can name its reader.
      if (recipient.action !== "failed") return;
      const { kind, code, said } = classifyFailure(recipient.status, recipient.diagnosticCode, {
        statusText: recipient.statusText,
        // The report's own words are about its one failed recipient, if it has only one.
        text: failed.length === 1 ? report.text : undefined,
        afterData: failed.length === 1 && AFTER_DATA_TEXT.test(report.text ?? ""),
        recipient: recipient.recipient,
        byAFilter: (report.headers.get("x-mailer") ?? []).some((mailer) => BY_A_FILTER.test(mailer)),
      });
      const detail =
        [code, said && `(${said})`, recipient.diagnosticCode ?? recipient.statusText]
          .filter(Boolean)
          .join(" ")
          .slice(0, DETAIL_CHARS) || "failed";
      events.push(event(index, kind, recipient.recipient ?? "", detail));
    });
    return { events, outcome: events.length > 0 ? events[0].kind : "ignored:no_failed_recipient" };
  }

  if (report.feedback) {
    const { type, originalRcptTo } = report.feedback;
    const complaint = COMPLAINT_FEEDBACK_TYPES.has(type);
    if (!complaint && !SENDER_FEEDBACK_TYPES.has(type))
      return { events: [], outcome: `ignored:feedback_${type.replace(/[^a-z-]/g, "") || "untyped"}` };
    const recipients = originalRcptTo.length > 0 ? originalRcptTo : (report.original?.to.slice(0, 1) ?? []);
    if (recipients.length === 0) return { events: [], outcome: "ignored:feedback_without_recipient" };
    const events = recipients.map((recipient, index) =>
      complaint
        ? event(index, "complaint", recipient, `reported as spam (${type})`)
        : event(index, "sender_refusal", recipient, `feedback report: ${type}`),
    );
    return { events, outcome: events[0].kind };
  }
  return { events: [], outcome: "ignored:not_a_report" };
}

export async function readDsnEvent(body: Uint8Array, now: Date): Promise<DsnReading> {
  let report: ReturnedMail;
  try {
    report = readReturnedMail(body);
  } catch (error) {
    if (error instanceof NotAMail) throw new Refusal(400, "invalid_event", error.message);
    throw error;
  }
  const baseId = report.messageId ?? `sha256:${await sha256Hex(Buffer.from(body).toString("latin1"))}`;
  return { ...dsnEvents(report, baseId, now), report };
}
