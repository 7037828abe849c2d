/**
 * The mail edition of an Effect, published as /effects/YYYY-MM-DD/mail.json (the contract is
 * supabase/functions/_shared/contract/published.ts): what the sender mails, rendered from the same
 * YAML by the same Markdown renderer as the page, in the brand's card that every mail shares
 * (contract/mail-template.ts), and its welcome variant (content/newsletter.yaml `mails.welcome`),
 * which a new reader gets as their first mail.
 */
import {
  fillPlaceholders,
  MAIL_STYLE,
  PRIVACY_PATH,
  renderMail,
  type MailBlock,
  type WelcomeCopy,
} from "../../supabase/functions/_shared/contract/mail-template";
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
  /** content/brand.yaml `name`: the header above the card. */
  brandName: string;
  texts: Pick<EffectPages, "name" | "mail">;
  /** content/newsletter.yaml `mails.welcome`: with it, the edition carries its welcome variant. */
  welcome?: WelcomeCopy;
}

const { serif: FONT, sans: SANS, ink: INK, emberText: EMBER } = MAIL_STYLE;

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

/**
 * A link whose text is an address may be longer than a phone is wide, and mail clients disagree on
 * every CSS way of breaking it (caniemail: `word-break`, `overflow-wrap`, `<wbr>`): a zero-width
 * space after each `/ ? & = # .` lets it wrap everywhere; the link itself (`href`) is untouched.
 */
function breakableAddresses(html: string): string {
  return html.replace(
    /(<a\b[^>]*>)((?:https?:\/\/|www\.)[^<]*)(<\/a>)/g,
    (_whole, open: string, text: string, close: string) =>
      `${open}${text.replace(/([/?&=#.])(?=[^\s])/g, "$1\u200b")}${close}`,
  );
}

export function mailEdition(effect: Effect, source: MailSource): MailEdition {
  const { siteUrl, brandName, texts } = source;
  const url = absoluteUrl(siteUrl, effectPath(effect.date));
  const subject = `${texts.name}: ${effect.title}`;
  const card = (blocks: MailBlock[], preheader: string, mailSubject: string) =>
    renderMail({
      subject: mailSubject,
      preheader,
      brandName,
      eyebrow: `${texts.name} · ${dayLabel(effect.date)}`,
      heading: effect.title,
      blocks: [
        ...blocks,
        {
          kind: "html",
          html: breakableAddresses(withInlineStyles(markdownToHtml(effect.body, siteUrl))),
          text: markdownToText(effect.body, siteUrl),
        },
        { kind: "button", label: texts.mail.readOnlineLabel, url },
        // How to pass it on: forwarded, or its page's link, which shows the Effect's own card.
        {
          kind: "paragraph",
          small: true,
          text: texts.mail.shareText,
          link: { label: texts.mail.shareLinkLabel, url },
        },
      ],
      footer: {
        text: texts.mail.reasonText,
        linkLabel: texts.mail.unsubscribeLabel,
        linkUrl: UNSUBSCRIBE_PLACEHOLDER,
        privacyLabel: texts.mail.privacyLabel,
        privacyUrl: absoluteUrl(siteUrl, PRIVACY_PATH),
      },
    });
  const edition: MailEdition = { date: effect.date, subject, ...card([], effect.summary, subject), url };
  if (source.welcome) {
    const values = { newsletter: texts.name, brand: brandName, effect_title: effect.title };
    const welcomeSubject = fillPlaceholders(source.welcome.subject, values);
    edition.welcome = {
      subject: welcomeSubject,
      ...card(
        [{ kind: "callout", text: fillPlaceholders(source.welcome.text, values) }],
        fillPlaceholders(source.welcome.preheader, values),
        welcomeSubject,
      ),
    };
  }
  return edition;
}
