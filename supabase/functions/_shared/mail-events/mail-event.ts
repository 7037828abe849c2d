/**
 * A mail event as the list understands it, whichever provider reported it: a permanent bounce, a
 * temporary one, a spam complaint, or a refusal that was about the sender, for one recipient. Each source (`resend.ts`, `ses.ts`,
 * `dsn.ts`) checks that a request really comes from its provider and reads it into these.
 */

export const MAIL_EVENT_SOURCES = ["resend", "ses", "dsn"] as const;
export type MailEventSource = (typeof MAIL_EVENT_SOURCES)[number];

/**
 * `bounce`: the recipient's permanent failure (the address is suppressed); `soft_bounce`: temporary
 * (counted by day); `complaint`; `sender_refusal`: refused because of the sender or the mail itself
 * (RFC 3463 X.7.x, X.6.x): recorded and counted, never held against the reader.
 */
export type MailEventKind = "bounce" | "soft_bounce" | "complaint" | "sender_refusal";

export interface MailEvent {
  source: MailEventSource;
  /** The provider's id for this event and recipient: the same event delivered twice has the same id. */
  id: string;
  kind: MailEventKind;
  /** The address the provider names; `""` for a returned mail's failed block that names none readable. */
  recipient: string;
  /** The subscriber a proof in the report names (`report-trust.ts`); without it, the recipient's address does. */
  subscriberId?: string;
  occurredAt: Date;
  /** What the provider said, for the operator: `5.1.1 user unknown`, `abuse`. */
  detail: string;
}

/** What a source made of one request: the events to apply, and for the log what else it was. */
export interface SourceReading {
  events: MailEvent[];
  /** e.g. `ignored:email.delivered`, `subscribed` (SNS), `bounce`. */
  outcome: string;
  /** Why a request that was well signed changes nothing (`report-trust.ts`), for its answer and the log. */
  ignored?: string;
}

/** Feedback types (RFC 5965; SES's `complaintFeedbackType`) that are the reader's own word about our mail. */
export const COMPLAINT_FEEDBACK_TYPES: ReadonlySet<string> = new Set([
  "abuse",
  "fraud",
  "virus",
  "other",
  "opt-out",
]);
/** Feedback types about the sender's authentication (RFC 6591): our SPF or DKIM failed there. */
export const SENDER_FEEDBACK_TYPES: ReadonlySet<string> = new Set(["auth-failure"]);

/** A provider's JSON, read without trusting its shape: a field that is not what it should be is absent. */
export const json = {
  object: (value: unknown): Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {},
  string: (value: unknown): string | undefined => (typeof value === "string" ? value : undefined),
  /** At most `limit` items: an event names a handful of recipients. */
  list: (value: unknown, limit = 100): unknown[] => (Array.isArray(value) ? value.slice(0, limit) : []),
};

/** How much of a provider's words an event keeps, for the operator. */
export const DETAIL_CHARS = 500;

/** How far a signed timestamp may be from this clock: replays older than this are refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** Compares two strings in time that does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let difference = left.length ^ right.length;
  for (let index = 0; index < Math.max(left.length, right.length); index++)
    difference |= (left[index] ?? 0) ^ (right[index] ?? 0);
  return difference === 0;
}
