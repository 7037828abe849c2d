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
  const checked: MailEdition = {
    date,
    subject: edition.subject,
    html: edition.html,
    text: edition.text,
    url: edition.url,
  };
  if (record.welcome !== undefined) checked.welcome = parseWelcome(record.welcome, source);
  return checked;
}

/** The edition's welcome variant: a subject and both parts, each with the unsubscribe placeholder. */
function parseWelcome(value: unknown, source: string): NonNullable<MailEdition["welcome"]> {
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  for (const field of ["subject", "html", "text"]) {
    if (typeof record[field] !== "string" || (record[field] as string).trim() === "")
      throw new EditionError(`${source}: field "welcome.${field}" is missing or empty`);
  }
  const welcome = record as { subject: string; html: string; text: string };
  for (const part of ["html", "text"] as const) {
    if (!welcome[part].includes(UNSUBSCRIBE_PLACEHOLDER))
      throw new EditionError(`${source}: "welcome.${part}" has no ${UNSUBSCRIBE_PLACEHOLDER} placeholder`);
  }
  return { subject: welcome.subject, html: welcome.html, text: welcome.text };
}

/**
 * The mail for one recipient, whose unsubscribe link carries `unsubscribeToken`: the edition, or
 * with `as: "welcome"` its welcome variant (the site's build renders both). With their
 * `subscriberId` (not for a test send), its envelope sender names them (VERP).
 */
export function effectMail(
  settings: MailSettings,
  edition: MailEdition,
  recipient: { to: string; unsubscribeToken: string; subscriberId?: string },
  as: "effect" | "welcome" = "effect",
): MailMessage {
  const page = unsubscribePageUrl(settings, recipient.unsubscribeToken);
  const parts = as === "welcome" ? edition.welcome : edition;
  if (!parts)
    throw new EditionError(`The Effect of ${edition.date}'s mail.json has no welcome: rebuild the site`);
  return {
    from: settings.mailFrom,
    to: recipient.to,
    subject: parts.subject,
    html: parts.html.split(UNSUBSCRIBE_PLACEHOLDER).join(escapeHtml(page)),
    text: parts.text.split(UNSUBSCRIBE_PLACEHOLDER).join(page),
    headers: listHeaders(settings, recipient.unsubscribeToken),
    ...envelopeSender(settings, as, recipient.subscriberId),
  };
}
