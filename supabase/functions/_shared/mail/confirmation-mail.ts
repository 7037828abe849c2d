/**
 * The confirmation mail, and its one reminder: the brand's card (contract/mail-template.ts) with
 * the words editors own (content/newsletter.yaml `mails.confirmation` and `mails.reminder`, carried
 * by `MailSettings`), the link's expiry in the brand's time zone, a plain-text part with the same
 * content, and the list headers every mail to a subscriber carries (list-headers.ts).
 * Nothing a visitor typed reaches the mail except the recipient address, so a signup form
 * cannot be used to send someone else a message. The page links built here are the only ones.
 */
import { momentLabel } from "../contract/calendar-day.ts";
import { fillPlaceholders, renderMail } from "../contract/mail-template.ts";
import {
  confirmPageUrl,
  envelopeSender,
  listHeaders,
  type MailSettings,
  privacyLink,
  unsubscribePageUrl,
} from "./list-headers.ts";
import type { MailMessage } from "./mailer.ts";

export interface ConfirmationMailInput {
  to: string;
  confirmToken: string;
  unsubscribeToken: string;
  expiresAt: Date;
  /** The signup's one reminder, a day after the first mail went unanswered. */
  reminder?: boolean;
  /** Whose mail it is: with BOUNCE_ADDRESS set, its envelope sender names them (VERP). */
  subscriberId?: string;
}

export function confirmationMail(settings: MailSettings, input: ConfirmationMailInput): MailMessage {
  const confirm = confirmPageUrl(settings, input.confirmToken);
  const unsubscribe = unsubscribePageUrl(settings, input.unsubscribeToken);
  const { newsletterName, brandName, mails } = settings;
  const copy = input.reminder ? mails.reminder : mails.confirmation;
  const values = {
    newsletter: newsletterName,
    brand: brandName,
    expiry: momentLabel(input.expiresAt, settings.timeZone),
  };
  const fill = (text: string) => fillPlaceholders(text, values);
  const subject = fill(copy.subject);
  const { html, text } = renderMail({
    subject,
    preheader: fill(copy.preheader),
    brandName,
    eyebrow: newsletterName,
    heading: fill(copy.heading),
    blocks: [
      { kind: "paragraph", text: fill(copy.greeting) },
      { kind: "paragraph", text: fill(copy.text) },
      { kind: "button", label: fill(copy.buttonLabel), url: confirm },
      { kind: "paragraph", text: fill(copy.expiryText), small: true },
      { kind: "paragraph", text: fill(copy.ignoreText), small: true },
    ],
    footer: {
      text: fillPlaceholders(mails.footer.reasonText, values),
      linkLabel: fillPlaceholders(mails.footer.unsubscribeLabel, values),
      linkUrl: unsubscribe,
      ...privacyLink(settings, values),
    },
  });

  return {
    from: settings.mailFrom,
    to: input.to,
    subject,
    text,
    html,
    headers: listHeaders(settings, input.unsubscribeToken),
    ...envelopeSender(settings, input.reminder ? "reminder" : "confirmation", input.subscriberId),
    preview: `confirm: ${confirm}`,
  };
}
