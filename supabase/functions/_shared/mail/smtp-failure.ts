/**
 * What an SMTP failure means for the address: a permanent refusal of this recipient or this
 * message (a 5xx reply to RCPT TO or DATA: "550 5.1.1 user unknown") will not change by trying
 * again, so the mail fails at once and the address is marked; everything else (4xx replies,
 * connection errors, timeouts, a 5xx to AUTH or MAIL FROM, which is our configuration, not the
 * address) is temporary and retried with backoff. Reads the fields nodemailer sets on its errors.
 *
 * An HTTP mail API (Resend, SES) says the same in its own words; its transport reads them once and
 * throws a `MailApiError` that carries the kind, so every sender keeps asking this one function.
 */
export type SmtpFailureKind = "permanent" | "temporary";

/** A refusal or failure of an HTTP mail API, already classified by the transport that read it. */
export class MailApiError extends Error {
  override name = "MailApiError";
  constructor(
    message: string,
    readonly kind: SmtpFailureKind,
    /** The HTTP status, absent when no answer came (a dropped connection, a timeout). */
    readonly status?: number,
  ) {
    super(message);
  }
}

interface SmtpErrorFields {
  responseCode?: unknown;
  command?: unknown;
}

const RECIPIENT_COMMANDS = new Set(["RCPT TO", "DATA"]);

export function smtpFailureKind(error: unknown): SmtpFailureKind {
  if (typeof error !== "object" || error === null) return "temporary";
  if (error instanceof MailApiError) return error.kind;
  const { responseCode, command } = error as SmtpErrorFields;
  const permanent =
    typeof responseCode === "number" &&
    responseCode >= 500 &&
    responseCode < 600 &&
    typeof command === "string" &&
    RECIPIENT_COMMANDS.has(command);
  return permanent ? "permanent" : "temporary";
}
