/**
 * What an SMTP failure means for the address: a permanent refusal of this recipient or this
 * message (a 5xx reply to RCPT TO or DATA: "550 5.1.1 user unknown") will not change by trying
 * again, so the mail fails at once and the address is marked; everything else (4xx replies,
 * connection errors, timeouts, a 5xx to AUTH or MAIL FROM, which is our configuration, not the
 * address) is temporary and retried with backoff. Reads the fields nodemailer sets on its errors.
 */
export type SmtpFailureKind = "permanent" | "temporary";

interface SmtpErrorFields {
  responseCode?: unknown;
  command?: unknown;
}

const RECIPIENT_COMMANDS = new Set(["RCPT TO", "DATA"]);

export function smtpFailureKind(error: unknown): SmtpFailureKind {
  if (typeof error !== "object" || error === null) return "temporary";
  const { responseCode, command } = error as SmtpErrorFields;
  const permanent =
    typeof responseCode === "number" &&
    responseCode >= 500 &&
    responseCode < 600 &&
    typeof command === "string" &&
    RECIPIENT_COMMANDS.has(command);
  return permanent ? "permanent" : "temporary";
}
