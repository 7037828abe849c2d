/**
 * What every mail transport is: a `Mailer` takes a finished `MailMessage` and resolves once the
 * mail is accepted. Transports (SMTP, outbox, log) live in `transports/`; what a mail says is
 * decided before it reaches them, so a transport never knows which kind of mail it carries.
 */

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /**
   * One line a transport that does not deliver (the outbox, the log) prints so a developer can
   * act on the mail without opening it, e.g. `confirm: https://...`. Never printed by SMTP.
   */
  preview?: string;
}

export interface Mailer {
  /** For the start-up log: "SMTP smtp.example.com:465", "outbox .data/outbox". */
  readonly description: string;
  send(message: MailMessage): Promise<void>;
  close?(): Promise<void>;
}
