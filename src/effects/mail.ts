/**
 * The mail edition of an Effect, published as /effects/YYYY-MM-DD/mail.json (the contract is
 * supabase/functions/_shared/contract/published.ts): what the sender mails, rendered from the same YAML by the same Markdown renderer as the page. The HTML is built
 * for mail clients: nested tables and inline styles, no stylesheet, no script, no web font.
 */
import { escapeHtml } from "../../supabase/functions/_shared/contract/escape-html";
import {
  type MailEdition,
  UNSUBSCRIBE_PLACEHOLDER,
} from "../../supabase/functions/_shared/contract/published";
import { absoluteUrl } from "../components/seo/structured-data";
import type { EffectPages } from "../content/schema";
import { dayLabel } from "../../supabase/functions/_shared/contract/calendar-day";
import type { Effect } from "./effects";
import { markdownToHtml, markdownToText } from "./markdown";
import { effectPath } from "./paths";

export interface MailSource {
  siteUrl: string;
  texts: Pick<EffectPages, "name" | "mail">;
}

const FONT = "font-family:Georgia,'Times New Roman',serif;";
const SANS = "font-family:Arial,Helvetica,sans-serif;";
const INK = "#1c1917";
const EMBER = "#92400e";

// The body's elements as mail clients need them: styles on each element, since many drop <style>.
const ELEMENT_STYLES: Record<string, string> = {
  p: `margin:0 0 16px;${FONT}font-size:18px;line-height:1.6;color:${INK};`,
  ul: `margin:0 0 16px;padding-left:24px;${FONT}font-size:18px;line-height:1.6;color:${INK};`,
  ol: `margin:0 0 16px;padding-left:24px;${FONT}font-size:18px;line-height:1.6;color:${INK};`,
  li: "margin:0 0 6px;",
  a: `color:${EMBER};text-decoration:underline;`,
  blockquote: `margin:0 0 16px;padding-left:16px;border-left:4px solid #f59e0b;color:${INK};`,
  h1: `margin:24px 0 12px;${SANS}font-size:22px;line-height:1.3;color:${INK};`,
  h2: `margin:24px 0 12px;${SANS}font-size:20px;line-height:1.3;color:${INK};`,
  h3: `margin:20px 0 10px;${SANS}font-size:18px;line-height:1.3;color:${INK};`,
  code: "font-family:Menlo,Consolas,monospace;font-size:15px;background-color:#f3ece1;",
  hr: "border:0;border-top:1px solid #e7e5e4;margin:24px 0;",
};

/**
 * Dark mode, for the clients that honour it (Apple Mail, iOS, Outlook.com): the same layout in
 * dark colours, by class, since the inline styles are the light ones. Gmail's apps invert the light
 * colours themselves, which this layout survives: no background image, no text in a picture.
 */
const DARK_MODE = `<style>
:root { color-scheme: light dark; supported-color-schemes: light dark; }
@media (prefers-color-scheme: dark) {
  .pe-page { background-color: #1c1917 !important; }
  .pe-card { background-color: #292524 !important; }
  .pe-ink { color: #f5f5f4 !important; }
  .pe-ember { color: #fbbf24 !important; }
  .pe-muted { color: #d6d3d1 !important; }
  .pe-code { background-color: #44403c !important; }
}
</style>`;

/** The dark-mode class of each element the body renderer writes. */
const ELEMENT_CLASSES: Record<string, string> = {
  p: "pe-ink",
  ul: "pe-ink",
  ol: "pe-ink",
  blockquote: "pe-ink",
  h1: "pe-ink",
  h2: "pe-ink",
  h3: "pe-ink",
  a: "pe-ember",
  code: "pe-code",
};

/** Puts each element's style (and dark-mode class) on its opening tag (the renderer's own tags; text is escaped). */
function withInlineStyles(html: string): string {
  return html.replace(/<(h[1-6]|[a-z]+)(\s[^>]*)?>/g, (tag, name: string, attributes = "") => {
    const style = ELEMENT_STYLES[name];
    const dark = ELEMENT_CLASSES[name] ? ` class="${ELEMENT_CLASSES[name]}"` : "";
    return style ? `<${name}${dark} style="${style}"${attributes}>` : tag;
  });
}

export function mailEdition(effect: Effect, { siteUrl, texts }: MailSource): MailEdition {
  const url = absoluteUrl(siteUrl, effectPath(effect.date));
  const subject = `${texts.name}: ${effect.title}`;
  const eyebrow = `${texts.name} · ${dayLabel(effect.date)}`;
  const unsubscribe = UNSUBSCRIBE_PLACEHOLDER;
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${escapeHtml(subject)}</title>
${DARK_MODE}
</head>
<body class="pe-page" style="margin:0;padding:0;background-color:#faf6f0;">
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">${escapeHtml(effect.summary)}</div>
<table class="pe-page" role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#faf6f0;">
<tr><td align="center" style="padding:24px 12px;">
<table class="pe-card" role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;background-color:#ffffff;border-radius:12px;">
<tr><td class="pe-ember" style="padding:32px 32px 0;${SANS}font-size:13px;letter-spacing:2px;text-transform:uppercase;color:${EMBER};">${escapeHtml(eyebrow)}</td></tr>
<tr><td style="padding:12px 32px 8px;"><h1 class="pe-ink" style="margin:0;${SANS}font-size:28px;line-height:1.2;color:${INK};">${escapeHtml(effect.title)}</h1></td></tr>
<tr><td style="padding:16px 32px 8px;">
${withInlineStyles(markdownToHtml(effect.body, siteUrl)).trim()}
</td></tr>
<tr><td style="padding:0 32px 32px;${SANS}font-size:15px;"><a class="pe-ember" href="${escapeHtml(url)}" style="color:${EMBER};font-weight:bold;text-decoration:underline;">${escapeHtml(texts.mail.readOnlineLabel)}</a></td></tr>
</table>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;">
<tr><td class="pe-muted" style="padding:20px 32px;${SANS}font-size:13px;line-height:1.5;color:#57534e;text-align:center;">${escapeHtml(texts.mail.reasonText)}<br><a class="pe-muted" href="${unsubscribe}" style="color:#57534e;text-decoration:underline;">${escapeHtml(texts.mail.unsubscribeLabel)}</a></td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  const text = [
    eyebrow.toUpperCase(),
    "",
    effect.title,
    "=".repeat(Math.min(effect.title.length, 72)),
    "",
    markdownToText(effect.body, siteUrl),
    "",
    `${texts.mail.readOnlineLabel}: ${url}`,
    "",
    "--",
    texts.mail.reasonText,
    `${texts.mail.unsubscribeLabel}: ${unsubscribe}`,
    "",
  ].join("\n");
  return { date: effect.date, subject, html, text, url };
}
