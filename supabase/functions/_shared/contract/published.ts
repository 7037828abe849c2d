/**
 * What the site's build publishes for the sender, and the sender reads: the contract between the
 * two, in one module both import (it imports only the contract's mail-template.ts: the site's build
 * reads it too, as it does signup-result-pages.ts).
 *
 * - `/effects/YYYY-MM-DD/mail.json`: an Effect's mail edition (`MailEdition`), with the
 *   `{{unsubscribe_url}}` placeholder the sender replaces per recipient.
 * - `/newsletter/sender.json`: the names and time zone the mail uses (`SenderIdentity`), from
 *   content/brand.yaml and content/effect-pages.yaml, so the sender has no copy of them.
 * - `/newsletter/latest.json`: the newest Effect with a mail edition (`LatestEdition`), which the
 *   welcome mail carries.
 */
import type { MailCopy } from "./mail-template.ts";

export interface MailEdition {
  date: string;
  subject: string;
  html: string;
  text: string;
  /** The Effect's page. */
  url: string;
  /**
   * The same Effect as the welcome mail a new reader gets (content/newsletter.yaml
   * `mails.welcome`), with the same placeholder. Absent in a mail.json built before it existed.
   */
  welcome?: { subject: string; html: string; text: string };
}

/**
 * The recipient's own unsubscribe link, left in `html` and `text` for the sender to replace. In
 * `html` it stands inside an `href="…"`, so the sender puts the HTML-escaped address there.
 */
export const UNSUBSCRIBE_PLACEHOLDER = "{{unsubscribe_url}}";

/** Where the mail edition of `date` is, from the site's root. */
export const mailEditionPath = (date: string) => `/effects/${date}/mail.json`;

export interface SenderIdentity {
  /** content/brand.yaml `name`: the mail's footer, the confirmation's "the daily newsletter from". */
  brandName: string;
  /** content/effect-pages.yaml `name`: the subject, the sender's name, the List-Id. */
  newsletterName: string;
  /** content/brand.yaml `timeZone`: the day SEND_AT is counted in, and the mails' times. */
  timeZone: string;
  /** content/newsletter.yaml `mails`: the words of the confirmation, the reminder and the welcome. */
  mails: MailCopy;
}

export const SENDER_IDENTITY_PATH = "/newsletter/sender.json";

/** The newest published Effect that has a mail edition (never a day after the build's real today). */
export interface LatestEdition {
  date: string;
}

export const LATEST_EDITION_PATH = "/newsletter/latest.json";

/** Where a host gets the identity: the content (the local stack) or sender.json on the site (Supabase). */
export type IdentitySource = () => Promise<SenderIdentity>;
