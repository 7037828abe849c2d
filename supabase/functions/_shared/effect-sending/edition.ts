/**
 * An Effect's mail edition as the site publishes it (`/effects/YYYY-MM-DD/mail.json`, see
 * published.ts), checked on arrival, and the mail one recipient gets: the edition with their own
 * unsubscribe link, and the list headers of every mail (list-headers.ts).
 */
import { escapeHtml } from "../contract/escape-html.ts";
import { envelopeSender, listHeaders, type MailSettings, unsubscribePageUrl } from "../mail/list-headers.ts";
import type { MailMessage } from "../mail/mailer.ts";
import { type MailEdition, UNSUBSCRIBE_PLACEHOLDER } from "../contract/published.ts";

export type { MailEdition };

export class EditionError extends Error {
  override name = "EditionError";
}

/**
 * Checks a parsed mail.json for `date`: every field present, the right day, an https or http
 * page address, and the unsubscribe placeholder in both parts (a mail without a working
 * unsubscribe link must not go out).
 */
export function parseEdition(value: unknown, date: string, source: string): MailEdition {
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  for (const field of ["date", "subject", "html", "text", "url"]) {
    if (typeof record[field] !== "string" || (record[field] as string).trim() === "")
      throw new EditionError(`${source}: field "${field}" is missing or empty`);
  }
  const edition = record as unknown as MailEdition;
  if (edition.date !== date)
    throw new EditionError(`${source}: is the Effect of ${edition.date}, not of ${date}`);
  if (!/^https?:\/\//.test(edition.url))
    throw new EditionError(`${source}: "url" must be an http(s) address (got "${edition.url}")`);
  for (const part of ["html", "text"] as const) {
    if (!edition[part].includes(UNSUBSCRIBE_PLACEHOLDER))
      throw new EditionError(`${source}: "${part}" has no ${UNSUBSCRIBE_PLACEHOLDER} placeholder`);
  }
  return { date, subject: edition.subject, html: edition.html, text: edition.text, url: edition.url };
}

/**
 * The mail for one recipient, whose unsubscribe link carries `unsubscribeToken`; with their
 * `subscriberId` (not for a test send), its envelope sender names them (VERP).
 */
export function effectMail(
  settings: MailSettings,
  edition: MailEdition,
  recipient: { to: string; unsubscribeToken: string; subscriberId?: string },
  mail: "effect" | "welcome" = "effect",
): MailMessage {
  const page = unsubscribePageUrl(settings, recipient.unsubscribeToken);
  return {
    from: settings.mailFrom,
    to: recipient.to,
    subject: edition.subject,
    html: edition.html.split(UNSUBSCRIBE_PLACEHOLDER).join(escapeHtml(page)),
    text: edition.text.split(UNSUBSCRIBE_PLACEHOLDER).join(page),
    headers: listHeaders(settings, recipient.unsubscribeToken),
    ...envelopeSender(settings, mail, recipient.subscriberId),
  };
}
