/**
 * The one Markdown renderer of an Effect's body: the page, the feeds and the mail edition all come
 * from it, so what a reader sees on the site is what a subscriber gets. Build-time only (the pages
 * receive finished HTML), so none of it reaches a visitor's JavaScript.
 */
import MarkdownIt, { type Token } from "markdown-it";

// Raw HTML is escaped, never passed through: an editor's <script> would otherwise reach every
// subscriber's inbox. The check below refuses it at build, so escaping is only the second fence.
const renderer = new MarkdownIt({ html: false, linkify: false, typographer: true });
// A second parser that does recognise HTML, used only to find it and name it in the build error.
// It also sees every link: markdown-it would otherwise leave a `javascript:` one as plain text, and
// the editor would not learn why it is not a link.
const htmlFinder = new MarkdownIt({ html: true });
htmlFinder.validateLink = () => true;

const hrefOf = (token: Token): string => String(token.attrGet("href") ?? "");
const hrefOrSrc = (token: Token): string => String(token.attrGet("src") ?? hrefOf(token));

const SAFE_HREF = /^(https?:\/\/|mailto:|\/(?!\/)|#)/i;

/** Every token, nested ones included, in document order. */
function flatten(tokens: readonly Token[]): Token[] {
  return tokens.flatMap((token) => [token, ...flatten(token.children ?? [])]);
}

/**
 * What is wrong with a body an editor wrote: raw HTML (quoted), images, and links that are neither
 * https://, http://, mailto: nor a path on this site. Empty when the body is fine.
 */
export function markdownProblems(body: string): string[] {
  const problems: string[] = [];
  for (const token of flatten(htmlFinder.parse(body, {}))) {
    if (token.type === "html_block" || token.type === "html_inline") {
      problems.push(
        `raw HTML is not allowed, write Markdown instead (found ${JSON.stringify(token.content.trim())})`,
      );
    }
    if (token.type === "image") {
      // A remote image in a mail is a tracking pixel, and a local one is not in the mail.
      problems.push(
        `images are not allowed in an Effect (found "${hrefOrSrc(token)}"): a picture in a mail tells the sender who opened it; link to it instead`,
      );
    }
    if (token.type === "link_open") {
      const href = hrefOf(token);
      if (!SAFE_HREF.test(href)) {
        problems.push(`link "${href}" must start with https://, http://, mailto: or / (a page of this site)`);
      }
    }
  }
  return problems;
}

/** Links to this site's own pages become absolute, so they work in a feed reader or a mail. */
function absoluteLinks(tokens: Token[], siteUrl: string): void {
  for (const token of flatten(tokens)) {
    const href = token.type === "link_open" ? hrefOf(token) : "";
    if (href.startsWith("/")) token.attrSet("href", new URL(href, siteUrl).href);
  }
}

/** The body as HTML; links to the site made absolute against `siteUrl`. */
export function markdownToHtml(body: string, siteUrl: string): string {
  const tokens = renderer.parse(body, {});
  absoluteLinks(tokens, siteUrl);
  return renderer.renderer.render(tokens, renderer.options, {});
}

/**
 * The body as plain text that reads well on its own: paragraphs apart, list items with "-" or
 * their number, emphasis dropped, each link followed by its address in brackets.
 */
export function markdownToText(body: string, siteUrl: string): string {
  const tokens = renderer.parse(body, {});
  absoluteLinks(tokens, siteUrl);
  const blocks: string[] = [];
  const lists: Array<{ ordered: boolean; next: number }> = [];
  let prefix = "";
  for (const token of tokens) {
    switch (token.type) {
      case "bullet_list_open":
      case "ordered_list_open":
        // A blank line between a paragraph and the list that follows it.
        if (lists.length === 0) blocks.push("");
        lists.push({
          ordered: token.type === "ordered_list_open",
          next: Number(token.attrGet("start") ?? 1),
        });
        break;
      case "bullet_list_close":
      case "ordered_list_close":
        lists.pop();
        break;
      case "list_item_open": {
        const list = lists[lists.length - 1];
        const indent = "  ".repeat(Math.max(lists.length - 1, 0));
        prefix = `${indent}${list?.ordered ? `${list.next++}.` : "-"} `;
        break;
      }
      case "inline": {
        const line = inlineText(token.children ?? []);
        if (prefix) {
          blocks.push(`${prefix}${line}`);
          prefix = "";
        } else if (lists.length > 0) {
          // A second paragraph inside a list item, indented under it.
          blocks.push(`${"  ".repeat(lists.length)}${line}`);
        } else {
          blocks.push(`\n${line}`);
        }
        break;
      }
      case "hr":
        blocks.push("\n---");
        break;
      default:
        break;
    }
  }
  return blocks.join("\n").trim();
}

function inlineText(children: readonly Token[]): string {
  let text = "";
  const hrefs: string[] = [];
  for (const child of children) {
    if (child.type === "link_open") hrefs.push(hrefOf(child));
    else if (child.type === "link_close") {
      const href = hrefs.pop() ?? "";
      const address = href.replace(/^mailto:/, "");
      // An autolink already shows its address.
      if (!text.endsWith(address)) text += ` (${address})`;
    } else if (child.type === "softbreak") text += " ";
    else if (child.type === "hardbreak") text += "\n";
    else text += child.content;
  }
  return text;
}
