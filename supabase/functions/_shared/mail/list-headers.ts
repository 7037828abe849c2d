/**
 * What every mail to a subscriber has in common, built in one place: the sender and list names
 * (`MailSettings`, from the configuration and the identity the site publishes), the links to the
 * site's confirm and unsubscribe pages, and the list headers mail providers use for their own
 * unsubscribe button and its one-click post (RFC 2919 List-Id, RFC 2369 List-Unsubscribe, RFC 8058).
 */
import type { Config } from "../config.ts";
import { fillPlaceholders, type MailCopy, PRIVACY_PATH } from "../contract/mail-template.ts";
import type { SenderIdentity } from "../contract/published.ts";
import { bounceAddress, type BounceMailKind, type BounceSettings } from "./bounce-token.ts";
import { displayName, type Mailbox, mailbox } from "./mailbox.ts";

export interface MailSettings {
  siteUrl: string;
  functionsUrl: string;
  /** MAIL_FROM, else the newsletter's name at the site's host: written by each transport. */
  mailFrom: Mailbox;
  newsletterName: string;
  brandName: string;
  /** `Effect of the Day <effect-of-the-day.thepurposeeffect.example>` */
  listId: string;
  /** `BOUNCE_ADDRESS` and its key: each mail to a subscriber gets its own envelope sender (VERP). */
  bounce?: BounceSettings | null;
  /** The brand's time zone, in which a mail tells a time. */
  timeZone: string;
  /** The mails' words (content/newsletter.yaml `mails:`). */
  mails: MailCopy;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "") || "newsletter";

/** The settings every mail is built from: MAIL_FROM, else the newsletter's name at the site's host. */
export function mailSettings(
  config: Pick<Config, "siteUrl" | "functionsUrl" | "mailFrom"> & Partial<Pick<Config, "bounce">>,
  identity: SenderIdentity,
): MailSettings {
  const host = new URL(config.siteUrl).hostname;
  const { newsletterName, brandName, timeZone, mails } = identity;
  return {
    siteUrl: config.siteUrl,
    functionsUrl: config.functionsUrl,
    mailFrom:
      config.mailFrom ??
      mailbox(newsletterName, `newsletter@${host === "localhost" ? "localhost.localdomain" : host}`),
    newsletterName,
    brandName,
    // RFC 2919's List-Id has a phrase too, written as a display name is.
    listId: `${displayName(newsletterName)} <${slug(newsletterName)}.${host}>`,
    bounce: config.bounce ?? null,
    timeZone,
    mails,
  };
}

/** The footer's link to the site's privacy page, in the words of `mails.footer` (`values`: its placeholders). */
export const privacyLink = (
  settings: Pick<MailSettings, "siteUrl" | "mails">,
  values: Readonly<Record<string, string>>,
): { privacyLabel: string; privacyUrl: string } => ({
  privacyLabel: fillPlaceholders(settings.mails.footer.privacyLabel, values),
  privacyUrl: `${settings.siteUrl}${PRIVACY_PATH}`,
});

export const confirmPageUrl = (settings: Pick<MailSettings, "siteUrl">, token: string): string =>
  `${settings.siteUrl}/?confirm=${encodeURIComponent(token)}`;

export const unsubscribePageUrl = (settings: Pick<MailSettings, "siteUrl">, token: string): string =>
  `${settings.siteUrl}/?unsubscribe=${encodeURIComponent(token)}`;

/** The RFC 8058 one-click address: the function itself, which a mail provider POSTs to. */
export const oneClickUnsubscribeUrl = (settings: Pick<MailSettings, "functionsUrl">, token: string): string =>
  `${settings.functionsUrl}/unsubscribe?token=${encodeURIComponent(token)}`;

/** The list headers every mail to a subscriber carries, the confirmation and the Effect alike. */
export const listHeaders = (
  settings: Pick<MailSettings, "functionsUrl" | "listId">,
  unsubscribeToken: string,
): Record<string, string> => ({
  "List-Id": settings.listId,
  "List-Unsubscribe": `<${oneClickUnsubscribeUrl(settings, unsubscribeToken)}>`,
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
});

/**
 * The envelope sender of one mail to one subscriber: `bounces+<token>@…` when BOUNCE_ADDRESS is
 * set (`bounce-token.ts`), else none (the transport uses the From address).
 */
export const envelopeSender = (
  settings: Pick<MailSettings, "bounce">,
  mail: BounceMailKind,
  subscriberId: string | undefined,
): { envelopeFrom?: string } =>
  settings.bounce && subscriberId
    ? { envelopeFrom: bounceAddress(settings.bounce, { mail, subscriberId }) }
    : {};
