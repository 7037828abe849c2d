/**
 * An Effect's mail edition as the site publishes it (`/effects/YYYY-MM-DD/mail.json`), checked on
 * arrival, and the mail one recipient gets: the edition with their own unsubscribe link, and the
 * list headers mail providers use for their own unsubscribe button (RFC 2919, 2369, 8058).
 */
import { type MailSettings, oneClickUnsubscribeUrl, unsubscribePageUrl } from "../mail/confirmation-mail.ts";
import type { MailMessage } from "../mail/mailer.ts";

export interface MailEdition {
  date: string;
  subject: string;
  html: string;
  text: string;
  url: string;
}

/** The site's per-recipient placeholder (src/effects/mail.ts on the site's side). */
export const UNSUBSCRIBE_PLACEHOLDER = "{{unsubscribe_url}}";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class EditionError extends Error {
  override name = "EditionError";
}

/** A real calendar day written YYYY-MM-DD (not 2026-02-30). */
export function isEditionDate(text: string): boolean {
  if (!DAY.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
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

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The mail for one recipient, whose unsubscribe link carries `unsubscribeToken`. */
export function effectMail(
  settings: MailSettings,
  edition: MailEdition,
  recipient: { to: string; unsubscribeToken: string },
): MailMessage {
  const page = unsubscribePageUrl(settings, recipient.unsubscribeToken);
  return {
    from: settings.mailFrom,
    to: recipient.to,
    subject: edition.subject,
    html: edition.html.split(UNSUBSCRIBE_PLACEHOLDER).join(escapeHtml(page)),
    text: edition.text.split(UNSUBSCRIBE_PLACEHOLDER).join(page),
    headers: {
      "List-Id": settings.listId,
      "List-Unsubscribe": `<${oneClickUnsubscribeUrl(settings, recipient.unsubscribeToken)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}
