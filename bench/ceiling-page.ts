/** The ceiling page Lighthouse compares the landing page with, written into a folder the stack serves. */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { escapeHtml as escape } from "../supabase/functions/_shared/contract/escape-html";
import { content, SPEC } from "../test/support/texts";

/**
 * The ceiling: the landing page's own words as plain HTML, one heading or paragraph each, with no
 * script, no stylesheet, no font and no image. Nothing a page carries can load faster than this.
 */
export function ceilingHtml(): string {
  const { brand, landing, story, channels, coreValues, newsletter } = content;
  const blocks: Array<["h1" | "h2" | "h3" | "p", string]> = [
    ["h1", brand.hero.title],
    ["p", SPEC.tagline],
    ["p", brand.hero.intro],
    ["p", brand.author.credit],
    ["h2", landing.episodeOne.title],
    ["p", landing.episodeOne.text],
    ["h2", story.why.title],
    ...story.why.paragraphs.map((text): ["p", string] => ["p", text]),
    ["h2", channels.title],
    ["p", channels.intro],
    ...channels.items.flatMap((channel): Array<["h3" | "p", string]> => [
      ["h3", channel.name],
      ["p", channel.description],
    ]),
    ["h2", coreValues.title],
    ["p", coreValues.intro],
    ...coreValues.items.flatMap((value): Array<["h3" | "p", string]> => [
      ["h3", value.title],
      ["p", value.description],
    ]),
    ["h2", story.biography.title],
    ...story.biography.paragraphs.map((text): ["p", string] => ["p", text]),
    ["h2", newsletter.inline.title],
    ["p", newsletter.inline.text],
    ["h2", landing.closing.title],
    ["p", landing.closing.text],
    ["p", landing.footer.note],
  ];
  return [
    "<!doctype html>",
    '<html lang="en">',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // No favicon request: the ceiling folder holds nothing but this page.
    '<link rel="icon" href="data:,">',
    `<title>${escape(brand.name)}</title>`,
    `<meta name="description" content="${escape(brand.description)}">`,
    "<body>",
    ...blocks.map(([tag, text]) => `<${tag}>${escape(text)}</${tag}>`),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** Writes the ceiling page as `index.html` in `dir` and returns the number of characters of text in it. */
export function writeCeilingPage(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const html = ceilingHtml();
  writeFileSync(path.join(dir, "index.html"), html);
  return html
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ")
    .trim().length;
}
