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
    /** The provider's name for the error, e.g. Resend's `invalid_idempotent_request`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The mail API says this idempotency key was used for a request with other bytes: a request with
 * the key was accepted before, so that mail went out once; sending it again under a new key would
 * send it twice.
 */
export const keyAlreadyUsed = (error: unknown): boolean =>
  error instanceof MailApiError && error.code === "invalid_idempotent_request";

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
