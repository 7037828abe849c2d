/**
 * A bounce or complaint as a mail, for a plain SMTP relay whose reports come back to a mailbox:
 * an inbound-mail route (Cloudflare Email Routing, Mailgun routes, a procmail `curl`) posts the raw
 * message here with `Authorization: Bearer DSN_WEBHOOK_SECRET`. Its MIME is parsed by mailparser;
 * the report parts are read field by field:
 *
 * - an RFC 3464 delivery status notification (`message/delivery-status`): each recipient whose
 *   Action is `failed` is a bounce, permanent for a 5.x.x Status and temporary for 4.x.x (a relay
 *   that gave up retrying); `delayed` and `delivered` reports are only warnings and ignored;
 * - an RFC 5965 feedback report (`message/feedback-report`, ARF): `abuse`, `fraud`, `virus` or
 *   `other` is a complaint, for its Original-Rcpt-To or else the reported mail's To.
 *
 * The event id is the report's Message-ID (with the recipient's place), else a hash of the body.
 * There is no timestamp to check: the bearer secret is the signature, and a replay changes nothing.
 */
import { Buffer } from "node:buffer";
import { simpleParser } from "mailparser";
import { Refusal } from "../http/answers.ts";
import { sha256Hex } from "../subscriptions/tokens.ts";
import { constantTimeEqual, type MailEvent, type SourceReading } from "./mail-event.ts";

const COMPLAINT_TYPES = new Set(["abuse", "fraud", "virus", "other"]);

/** The blocks of `Name: value` fields in a report part (continuation lines unfolded). */
export function reportFields(text: string): Map<string, string>[] {
  return text
    .replace(/\r\n/g, "\n")
    .split(/\n\s*\n/)
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.replace(/\n[ \t]+/g, " ").split("\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      return fields;
    })
    .filter((fields) => fields.size > 0);
}

/** `rfc822; Ann@Example.com` or `<ann@example.com>` → `Ann@Example.com`. */
const address = (value: string | undefined): string | undefined => {
  const bare = value
    ?.replace(/^rfc822\s*;/i, "")
    .trim()
    .replace(/^<|>$/g, "");
  return bare?.includes("@") ? bare : undefined;
};

export function checkBearer(headers: Headers, secret: string): void {
  const given = /^Bearer (.+)$/i.exec(headers.get("authorization") ?? "")?.[1] ?? "";
  if (!given || !constantTimeEqual(given, secret))
    throw new Refusal(401, "unauthorized", "The report needs Authorization: Bearer DSN_WEBHOOK_SECRET.", {
      outcome: given ? "invalid_bearer" : "unsigned",
    });
}

export async function readDsnEvent(body: Uint8Array, now: Date): Promise<SourceReading> {
  let parsed: Awaited<ReturnType<typeof simpleParser>>;
  try {
    parsed = await simpleParser(Buffer.from(body), {
      keepDeliveryStatus: true,
      skipHtmlToText: true,
      skipTextToHtml: true,
    });
  } catch {
    throw new Refusal(400, "invalid_event", "The body is not a mail message (RFC 5322).");
  }
  const baseId = parsed.messageId ?? `sha256:${await sha256Hex(Buffer.from(body).toString("latin1"))}`;
  const occurredAt = parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date : now;
  const part = (type: string) =>
    parsed.attachments
      .find((attachment) => attachment.contentType.toLowerCase() === type)
      ?.content.toString("utf8");

  const status = part("message/delivery-status");
  if (status !== undefined) {
    const [, ...recipients] = reportFields(status);
    const events: MailEvent[] = [];
    recipients.forEach((fields, index) => {
      const recipient = address(fields.get("final-recipient")) ?? address(fields.get("original-recipient"));
      const code = /^[245]\.\d{1,3}\.\d{1,3}/.exec(fields.get("status") ?? "")?.[0] ?? "";
      if (!recipient || fields.get("action")?.toLowerCase() !== "failed") return;
      events.push({
        source: "dsn",
        id: `${baseId}#${index}`,
        kind: code.startsWith("4") ? "soft_bounce" : "bounce",
        recipient,
        occurredAt,
        detail: [code, fields.get("diagnostic-code")].filter(Boolean).join(" ") || "failed",
      });
    });
    return { events, outcome: events.length > 0 ? events[0].kind : "ignored:no_failed_recipient" };
  }

  const feedback = part("message/feedback-report");
  if (feedback !== undefined) {
    const [fields = new Map<string, string>()] = reportFields(feedback);
    const type = (fields.get("feedback-type") ?? "").toLowerCase();
    if (!COMPLAINT_TYPES.has(type)) return { events: [], outcome: `ignored:feedback_${type || "untyped"}` };
    let recipient = address(fields.get("original-rcpt-to"));
    if (!recipient) {
      const reported = part("message/rfc822") ?? part("text/rfc822-headers");
      if (reported !== undefined) {
        const original = await simpleParser(
          reported.includes("\n\n") || reported.includes("\r\n\r\n") ? reported : `${reported}\r\n\r\n`,
        );
        const to = Array.isArray(original.to) ? original.to[0] : original.to;
        recipient = to?.value[0]?.address;
      }
    }
    if (!recipient)
      throw new Refusal(
        400,
        "invalid_event",
        "The complaint report names no recipient (Original-Rcpt-To, or the reported mail's To).",
      );
    return {
      events: [
        {
          source: "dsn",
          id: `${baseId}#0`,
          kind: "complaint",
          recipient,
          occurredAt,
          detail: `reported as spam (${type})`,
        },
      ],
      outcome: "complaint",
    };
  }
  throw new Refusal(
    400,
    "invalid_event",
    "The mail is neither a delivery status notification (RFC 3464) nor a complaint report (RFC 5965).",
  );
}
