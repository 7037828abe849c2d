/**
 * The confirmation mail, and its one reminder: an HTML and a plain-text part with the same content, and the list
 * headers every mail to a subscriber carries (list-headers.ts).
 * Nothing a visitor typed reaches the mail except the recipient address, so a signup form
 * cannot be used to send someone else a message. The page links built here are the only ones.
 */
import { escapeHtml } from "../contract/escape-html.ts";
import {
  confirmPageUrl,
  envelopeSender,
  listHeaders,
  type MailSettings,
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

/** "Mon, 23 Nov 2026 19:13:15 GMT": unambiguous for every reader, whatever their time zone. */
const formatExpiry = (date: Date): string => date.toUTCString();

export function confirmationMail(settings: MailSettings, input: ConfirmationMailInput): MailMessage {
  const confirm = confirmPageUrl(settings, input.confirmToken);
  const unsubscribe = unsubscribePageUrl(settings, input.unsubscribeToken);
  const expires = formatExpiry(input.expiresAt);
  const { newsletterName, brandName } = settings;
  const subject = input.reminder
    ? `Reminder: confirm your subscription to ${newsletterName}`
    : `Confirm your subscription to ${newsletterName}`;
  const opening = input.reminder
    ? `Yesterday someone signed up with this address for ${newsletterName}, the daily newsletter from ${brandName}, and it has not been confirmed yet. If you want to receive it, please confirm now.`
    : `Please confirm that you want to receive ${newsletterName}, the daily newsletter from ${brandName}.`;
  const ifNotYou = input.reminder
    ? "This is our only reminder. If it wasn't you who signed up, ignore this mail: you will not be subscribed and will not hear from us again."
    : "If it wasn't you who signed up, ignore this mail: you will not be subscribed, and after at most one reminder you will not hear from us again.";

  const text = [
    "Hello,",
    "",
    opening,
    "",
    "Confirm your subscription:",
    confirm,
    "",
    `This link expires on ${expires}.`,
    "",
    ifNotYou,
    "",
    "--",
    brandName,
    `Unsubscribe: ${unsubscribe}`,
    "",
  ].join("\n");

  const e = escapeHtml;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(subject)}</title>
</head>
<body style="margin:0;padding:24px;background:#f6f6f6;font-family:Arial,Helvetica,sans-serif;color:#111;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#fff;padding:32px;">
<tr><td>
<h1 style="font-size:22px;margin:0 0 16px;">${e(newsletterName)}</h1>
<p style="font-size:16px;line-height:1.5;">Hello,</p>
<p style="font-size:16px;line-height:1.5;">${e(opening)}</p>
<p style="margin:24px 0;"><a href="${e(confirm)}" style="display:inline-block;background:#111;color:#fff;padding:12px 20px;text-decoration:none;font-weight:bold;">Confirm your subscription</a></p>
<p style="font-size:14px;line-height:1.5;">Or open this link: <a href="${e(confirm)}">${e(confirm)}</a></p>
<p style="font-size:14px;line-height:1.5;">This link expires on ${e(expires)}.</p>
<p style="font-size:14px;line-height:1.5;">${e(ifNotYou)}</p>
<p style="font-size:12px;line-height:1.5;color:#555;margin-top:32px;">${e(brandName)} · <a href="${e(unsubscribe)}" style="color:#555;">Unsubscribe</a></p>
</td></tr>
</table>
</body>
</html>
`;

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
