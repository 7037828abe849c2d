/**
 * The one template family of every mail to a subscriber (the confirmation, its reminder, the
 * welcome and the Effect of the Day): the brand's card on its cream page, a hidden preheader the
 * inbox list shows (then blank characters, so the inbox does not go on with the mail's first
 * words), the brand's header, a heading, the body, a bulletproof button (a padded,
 * coloured `<td>` with the link inside), the footer, and the same content as plain text.
 *
 * Built for mail clients as caniemail.com documents them: nested tables, every font and colour
 * inline on each element, padding only on `<td>` cells (Outlook drops it elsewhere), a 600 px
 * ghost table for Outlook on Windows (which ignores `max-width`), `word-wrap` on every cell, no raw
 * address in the HTML part (an address an editor writes as a link's text is made breakable by
 * src/effects/mail.ts), no web font, no script, and no picture but one the mail carries inline
 * (`image`: the owner's weekly chart, by `cid:`; nothing is loaded from the web). Dark colours by
 * class for the clients that honour `prefers-color-scheme`; the others show the light ones.
 *
 * Shared by the site's build (the Effect and the welcome, `src/effects/mail.ts`) and the core (the
 * confirmation and the reminder, `mail/confirmation-mail.ts`; the owner's weekly report,
 * `report/weekly-mail.ts`), with the copy editors own in
 * content/newsletter.yaml (`mails:`) and its `{placeholders}` (`MAIL_PLACEHOLDERS`).
 * Imports only its sibling, the one HTML escaper.
 */
import { escapeHtml as e } from "./escape-html.ts";

/** The brand's colours and fonts, as tailwind.config.js names them for the site. */
export const MAIL_STYLE = {
  serif: "font-family:Georgia,'Times New Roman',serif;",
  sans: "font-family:Arial,Helvetica,sans-serif;",
  /** The site's display face is the web font Anton; mail gets the nearest face the reader has. */
  display: "font-family:Impact,'Arial Narrow Bold','Arial Black',Arial,sans-serif;",
  ink: "#1c1917",
  cream: "#faf6f0",
  creamDeep: "#f3ece1",
  ember: "#f59e0b",
  emberText: "#92400e",
  muted: "#57534e",
} as const;

const S = MAIL_STYLE;

/** A part of a mail's body, in the HTML and the plain-text part alike. */
export type MailBlock =
  /**
   * A paragraph of text (escaped here); with `link`, the `{link}` in the text becomes that link (in
   * the plain-text part, its words and then its address in brackets, as the Effect's own links).
   */
  | { kind: "paragraph"; text: string; small?: boolean; link?: { label: string; url: string } }
  /** A highlighted paragraph on the cream colour (the welcome's greeting). */
  | { kind: "callout"; text: string }
  /** HTML made by the caller's own renderer (the Effect's Markdown), with its plain-text twin. */
  | { kind: "html"; html: string; text: string }
  /** The call to action: a button in HTML, "label: address" in the text. */
  | { kind: "button"; label: string; url: string }
  /** A section's title inside the card. */
  | { kind: "subheading"; text: string }
  /**
   * Numbers in rows: the first cell names the row, the others are right-aligned; `head` names the
   * columns. In the plain-text part, the same as aligned columns.
   */
  | { kind: "table"; head: readonly string[]; rows: readonly (readonly string[])[] }
  /**
   * A picture the mail carries (`cid:<contentId>`, `MailMessage.inlineImages`), as wide as the card
   * allows and at most `width` px; `alt` says what it shows, and is the plain-text part's line.
   */
  | { kind: "image"; contentId: string; alt: string; width: number; height: number };

export interface MailLayout {
  /** The subject, also the HTML document's title. */
  subject: string;
  /** The line the inbox list shows after the subject. */
  preheader: string;
  /** The brand's name, the header above the card. */
  brandName: string;
  /** The small line above the heading (the newsletter's name, and the Effect's day). */
  eyebrow: string;
  heading: string;
  blocks: readonly MailBlock[];
  /** Why the reader gets it, the unsubscribe link, and the privacy page's link (`PRIVACY_PATH`). */
  footer: { text: string; linkLabel: string; linkUrl: string; privacyLabel: string; privacyUrl: string };
}

/** The site's privacy page (content/privacy.yaml): what is kept, why, for how long, how to leave. */
export const PRIVACY_PATH = "/privacy/";

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
  .pe-callout { background-color: #44403c !important; }
  .pe-ink { color: #f5f5f4 !important; }
  .pe-ember { color: #fbbf24 !important; }
  .pe-muted { color: #d6d3d1 !important; }
  .pe-code { background-color: #44403c !important; }
}
</style>`;

/** Where a paragraph's link goes in its text. */
const LINK_PLACEHOLDER = "{link}";

/** Left and right padding of the card's cells. */
const SIDE = "28px";
const WRAP = "word-wrap:break-word;";

/** A row of the card: one padded cell. */
const row = (padding: string, inner: string, style = "", className = "") =>
  `<tr><td${className ? ` class="${className}"` : ""} style="padding:${padding};${WRAP}${style}">${inner}</td></tr>`;

/** A link of the footer, in its muted colour. */
const footerLink = (url: string, label: string) =>
  `<a class="pe-muted" href="${e(url)}" style="${S.sans}color:${S.muted};text-decoration:underline;">${e(label)}</a>`;

function blockHtml(block: MailBlock): string {
  switch (block.kind) {
    case "paragraph": {
      const size = block.small ? "font-size:15px;line-height:1.5;" : "font-size:17px;line-height:1.6;";
      const { link } = block;
      const colour = block.small ? S.muted : S.ink;
      const html = link
        ? block.text
            .split(LINK_PLACEHOLDER)
            .map(e)
            .join(
              `<a class="${block.small ? "pe-muted" : "pe-ink"}" href="${e(link.url)}" style="color:${colour};text-decoration:underline;">${e(link.label)}</a>`,
            )
        : e(block.text);
      return row(
        `0 ${SIDE} 16px`,
        html,
        `${S.sans}${size}color:${block.small ? S.muted : S.ink};`,
        block.small ? "pe-muted" : "pe-ink",
      );
    }
    case "callout":
      return row(
        `0 ${SIDE} 20px`,
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td class="pe-callout pe-ink" bgcolor="${S.creamDeep}" style="padding:16px 18px;background-color:${S.creamDeep};border-left:4px solid ${S.ember};${S.sans}font-size:16px;line-height:1.5;color:${S.ink};${WRAP}">${e(block.text)}</td></tr></table>`,
      );
    case "html":
      return row(`0 ${SIDE} 8px`, block.html.trim());
    case "button":
      // Bulletproof: the padded cell is the button's colour, so Outlook (which ignores padding on
      // a link) still shows a full button; the link fills it for every other client.
      return row(
        `8px ${SIDE} 24px`,
        `<table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr><td align="center" bgcolor="${S.ember}" style="padding:14px 24px;background-color:${S.ember};${WRAP}"><a href="${e(block.url)}" style="${S.sans}font-size:16px;line-height:20px;font-weight:bold;color:${S.ink};text-decoration:none;display:inline-block;">${e(block.label)}</a></td></tr></table>`,
      );
    case "subheading":
      return row(
        `12px ${SIDE} 10px`,
        `<h2 class="pe-ink" style="margin:0;${S.sans}font-size:19px;line-height:1.3;color:${S.ink};">${e(block.text)}</h2>`,
      );
    case "table":
      return row(`0 ${SIDE} 20px`, tableHtml(block.head, block.rows));
    case "image":
      // The width attribute for Outlook on Windows (which ignores CSS sizes), the style for the rest.
      return row(
        `0 ${SIDE} 20px`,
        `<img src="cid:${e(block.contentId)}" width="${block.width}" height="${block.height}" alt="${e(block.alt)}" style="display:block;width:100%;max-width:${block.width}px;height:auto;border:0;${S.sans}font-size:14px;color:${S.muted};">`,
      );
  }
}

/** A table of numbers: the first column names each row, the others are right-aligned. */
function tableHtml(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (text: string, index: number, header: boolean) => {
    const align = index === 0 ? "left" : "right";
    const weight = header || index === 0 ? "font-weight:bold;" : "";
    const colour = header ? S.muted : S.ink;
    return `<td class="${header ? "pe-muted" : "pe-ink"}" align="${align}" style="padding:7px ${index === 0 ? "8px 7px 0" : "0 7px 8px"};border-bottom:1px solid ${S.creamDeep};${S.sans}font-size:${header ? 13 : 15}px;line-height:1.4;${weight}color:${colour};text-align:${align};${WRAP}">${e(text)}</td>`;
  };
  const line = (cells: readonly string[], header: boolean) =>
    `<tr>${cells.map((text, index) => cell(text, index, header)).join("")}</tr>`;
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">${line(head, true)}${rows.map((cells) => line(cells, false)).join("")}</table>`;
}

/** The same table in the plain-text part: columns padded to their widest cell. */
function tableText(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [head, ...rows];
  const widths = head.map((_, column) => Math.max(...lines.map((cells) => (cells[column] ?? "").length)));
  return lines
    .map((cells) =>
      cells
        .map((text, column) => (column === 0 ? text.padEnd(widths[column]) : text.padStart(widths[column])))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function blockText(block: MailBlock): string {
  switch (block.kind) {
    case "paragraph":
      return block.link
        ? block.text.split(LINK_PLACEHOLDER).join(`${block.link.label} (${block.link.url})`)
        : block.text;
    case "callout":
      return block.text;
    case "html":
      return block.text.trim();
    case "button":
      return `${block.label}: ${block.url}`;
    case "subheading":
      return `${block.text}\n${"-".repeat(Math.min(block.text.length, 72))}`;
    case "table":
      return tableText(block.head, block.rows);
    case "image":
      return `[${block.alt}]`;
  }
}

/** The mail's HTML and plain-text parts. */
export function renderMail(mail: MailLayout): { html: string; text: string } {
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${e(mail.subject)}</title>
${DARK_MODE}
</head>
<body class="pe-page" style="margin:0;padding:0;background-color:${S.cream};">
<div style="font-size:0;line-height:0;max-height:0;color:${S.cream};mso-hide:all;">${e(mail.preheader)}</div>
<div style="font-size:0;line-height:0;max-height:0;color:${S.cream};mso-hide:all;">${"&#8199;&#847;".repeat(40)}</div>
<table class="pe-page" role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${S.cream}" style="background-color:${S.cream};">
<tr><td align="center" style="padding:24px 10px;">
<!--[if mso]><table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->
<table class="pe-card" role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff" style="max-width:600px;background-color:#ffffff;">
<tr><td class="pe-header" bgcolor="${S.ink}" style="padding:18px ${SIDE};background-color:${S.ink};border-bottom:4px solid ${S.ember};${S.display}font-size:22px;line-height:1.2;letter-spacing:1px;color:${S.cream};${WRAP}">${e(mail.brandName.toUpperCase())}</td></tr>
${row(`28px ${SIDE} 0`, e(mail.eyebrow), `${S.sans}font-size:13px;line-height:1.4;letter-spacing:2px;text-transform:uppercase;color:${S.emberText};`, "pe-ember")}
${row(`10px ${SIDE} 20px`, `<h1 class="pe-ink" style="margin:0;${S.sans}font-size:28px;line-height:1.2;color:${S.ink};">${e(mail.heading)}</h1>`)}
${mail.blocks.map(blockHtml).join("\n")}
<tr><td style="padding:0 0 12px;font-size:0;line-height:0;">&nbsp;</td></tr>
</table>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;">
${row(`20px ${SIDE}`, `${e(mail.footer.text)}<br>${footerLink(mail.footer.linkUrl, mail.footer.linkLabel)} &middot; ${footerLink(mail.footer.privacyUrl, mail.footer.privacyLabel)}`, `${S.sans}font-size:13px;line-height:1.5;color:${S.muted};text-align:center;`, "pe-muted")}
</table>
<!--[if mso]></td></tr></table><![endif]-->
</td></tr>
</table>
</body>
</html>
`;
  const text = [
    mail.brandName.toUpperCase(),
    "",
    mail.eyebrow.toUpperCase(),
    "",
    mail.heading,
    "=".repeat(Math.min(mail.heading.length, 72)),
    "",
    ...mail.blocks.flatMap((block) => [blockText(block), ""]),
    "--",
    mail.footer.text,
    `${mail.footer.linkLabel}: ${mail.footer.linkUrl}`,
    `${mail.footer.privacyLabel}: ${mail.footer.privacyUrl}`,
    "",
  ].join("\n");
  return { html, text };
}

/** Which `{placeholders}` each mail's texts may hold (content/newsletter.yaml, `mails:`). */
export const MAIL_PLACEHOLDERS = {
  confirmation: ["newsletter", "brand", "expiry"],
  reminder: ["newsletter", "brand", "expiry"],
  welcome: ["newsletter", "brand", "effect_title"],
  footer: ["newsletter", "brand"],
  ownerReport: [
    "newsletter",
    "brand",
    "week",
    "list_size",
    "change",
    "joined",
    "left",
    "effect_title",
    "effect_day",
    "mailed",
    "lost",
    "bounced",
    "complained",
    "unsubscribed",
  ],
} as const;

/** The confirmation's (and the reminder's) texts, in the order the mail shows them. */
const CONFIRMATION_FIELDS = [
  "subject",
  "preheader",
  "heading",
  "greeting",
  "text",
  "buttonLabel",
  "expiryText",
  "ignoreText",
] as const;

/**
 * The texts of each mail besides the Effect itself: the one list that content/newsletter.yaml's
 * description (src/content/schema.ts) and sender.json's check (`mailCopyProblems`) are made from.
 */
export const MAIL_COPY_FIELDS = {
  confirmation: CONFIRMATION_FIELDS,
  reminder: CONFIRMATION_FIELDS,
  welcome: ["subject", "preheader", "text"],
  footer: ["reasonText", "unsubscribeLabel", "privacyLabel"],
  /** The owner's weekly report (report/weekly-mail.ts), to OWNER_EMAIL only. */
  ownerReport: [
    "subject",
    "preheader",
    "eyebrow",
    "heading",
    "intro",
    "thisWeekLabel",
    "weekBeforeLabel",
    "changeLabel",
    "listSizeLabel",
    "joinedLabel",
    "unsubscribedLabel",
    "bouncedLabel",
    "complainedLabel",
    "chartHeading",
    "chartAlt",
    "sourcesHeading",
    "sourceLabel",
    "readersLabel",
    "noSourcesText",
    "lostHeading",
    "lostText",
    "noLossText",
    "moreText",
    "reasonText",
    "siteLabel",
  ],
} as const;

type MailTexts<M extends keyof typeof MAIL_COPY_FIELDS> = {
  readonly [Field in (typeof MAIL_COPY_FIELDS)[M][number]]: string;
};

export type ConfirmationCopy = MailTexts<"confirmation">;
export type WelcomeCopy = MailTexts<"welcome">;
export type OwnerReportCopy = MailTexts<"ownerReport">;

/** The words of the mails besides the Effect itself: content/newsletter.yaml's `mails:`. */
export type MailCopy = { readonly [M in keyof typeof MAIL_COPY_FIELDS]: MailTexts<M> };

const PLACEHOLDER = /\{([^{}\s]*)\}/g;

/** The placeholders in `text` that `allowed` does not list. */
export const unknownPlaceholders = (text: string, allowed: readonly string[]): string[] =>
  [...text.matchAll(PLACEHOLDER)].map((match) => match[1]).filter((name) => !allowed.includes(name));

/** `text` with each `{name}` replaced by its value. */
export const fillPlaceholders = (text: string, values: Readonly<Record<string, string>>): string =>
  text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);

/**
 * Problems with a `MailCopy` (from sender.json or the content): each text there and non-empty, and
 * only the placeholders its mail knows. Each problem names the field as `mails.reminder.subject`.
 */
export function mailCopyProblems(value: unknown): string[] {
  const copy = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const problems: string[] = [];
  for (const mail of Object.keys(MAIL_COPY_FIELDS) as (keyof MailCopy)[]) {
    const texts = (copy[mail] ?? {}) as Record<string, unknown>;
    for (const name of MAIL_COPY_FIELDS[mail]) {
      const text = texts[name];
      const where = `mails.${mail}.${name}`;
      if (typeof text !== "string" || text.trim() === "")
        problems.push(`"${where}" must be a non-empty text`);
      else problems.push(...placeholderProblems(text, MAIL_PLACEHOLDERS[mail], where));
    }
  }
  return problems;
}

/**
 * One problem per unknown placeholder in `text`, naming the ones it may use, and one for a brace
 * that opens or closes no placeholder (a typo such as `{expiry` would reach the reader as is).
 */
export function placeholderProblems(text: string, allowed: readonly string[], where: string): string[] {
  const known = allowed.map((name) => `{${name}}`).join(", ");
  const problems = unknownPlaceholders(text, allowed).map(
    (name) => `"${where}" has an unknown placeholder {${name}} (it may use ${known})`,
  );
  if (/[{}]/.test(text.replace(PLACEHOLDER, "")))
    problems.push(`"${where}" has a { or } that is not part of a placeholder (it may use ${known})`);
  return problems;
}
