/**
 * An Effect's social card as drawn (1200x630): its title, its day and the brand's name in the
 * site's look (ink, cream, ember, the display face Anton), which its page names as `og:image` and
 * `twitter:image`. Laid out by satori (layout and text as SVG paths,
 * https://github.com/vercel/satori), rasterized by resvg (@resvg/resvg-js, a third faster than
 * sharp's librsvg here) and written as a PNG of the 16 colours of ./card-palette.ts
 * (./palette-png.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import satori from "satori";
import { Resvg } from "@resvg/resvg-js";
import { dayLabel } from "../../supabase/functions/_shared/contract/calendar-day";
import { CARD_PALETTE, CREAM, EMBER, INK, MUTED, rgb } from "./card-palette";
import { IndexedRows, indexedPng, type Rgb } from "./palette-png";

export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

/**
 * The drawing's own version: change it with the layout below, so every card is drawn again. The
 * libraries' versions are part of the cache key too.
 */
const DRAWING_VERSION = "4";

/** What a card shows; the cache key is made of exactly this. */
export interface CardContent {
  brandName: string;
  /** The line above the title: the newsletter's name and the Effect's day. */
  eyebrow: string;
  title: string;
  /** The site's host name, at the foot of the card. */
  site: string;
}

/** What a published Effect's card shows; `eyebrow` is content/effect-pages.yaml `effect.eyebrow`. */
export const cardContent = (
  effect: { date: string; title: string },
  { brand, eyebrow }: { brand: { name: string; siteUrl: string }; eyebrow: string },
): CardContent => ({
  brandName: brand.name,
  eyebrow: `${eyebrow} · ${dayLabel(effect.date)}`,
  title: effect.title,
  site: new URL(brand.siteUrl).host,
});

// Gatsby bundles gatsby-node.ts and its imports, which leaves no `require.resolve`: resolve from the project.
const requireFromRoot = createRequire(path.resolve("package.json"));

/** Found by its package.json, which every package exports (a test runner may map a font's own path). */
const packageDir = (name: string): string => path.dirname(requireFromRoot.resolve(`${name}/package.json`));
const packageVersion = (name: string): string =>
  (JSON.parse(readFileSync(path.join(packageDir(name), "package.json"), "utf8")) as { version: string })
    .version;

let versions: string[] | undefined;

/** What a drawn card depends on besides what it shows: the drawing's version and its libraries'. */
export function drawingVersions(): readonly string[] {
  // Read once: a build makes thousands of cache keys.
  versions ??= [DRAWING_VERSION, packageVersion("satori"), packageVersion("@resvg/resvg-js")];
  return versions;
}

let fontsLoaded: { name: string; data: Buffer; weight: 400; style: "normal" }[] | undefined;

/** Anton as @fontsource ships it: satori reads WOFF (not WOFF2); latin-ext for names such as "Zoë". */
function fonts() {
  fontsLoaded ??= ["latin", "latin-ext"].map((subset) => ({
    name: "Anton",
    data: readFileSync(
      path.join(packageDir("@fontsource/anton"), "files", `anton-${subset}-400-normal.woff`),
    ),
    weight: 400 as const,
    style: "normal" as const,
  }));
  return fontsLoaded;
}

/** A satori element, written without JSX so the build's Node code needs no React. */
type Element = { type: string; props: { style?: Record<string, unknown>; children?: unknown } };
const box = (style: Record<string, unknown>, children?: unknown): Element => ({
  type: "div",
  props: { style: { display: "flex", ...style }, children },
});

/** The title's size: as large as fits in three lines of the card's width. */
function titleSize(title: string): number {
  const length = title.length;
  if (length <= 24) return 112;
  if (length <= 48) return 96;
  if (length <= 80) return 76;
  return 60;
}

/**
 * The card, top to bottom: the brand's bar with its ember rule, the Effect's band (its day and
 * title), the site's host. The bar and the host are the same on every card of a site, so they are
 * drawn once per build (the frame) and only the Effect's band for each Effect, at the place and
 * size the frame leaves it.
 */
const cardStyle = { backgroundColor: INK, color: CREAM, fontFamily: "Anton" };

/** The Effect's band: its day above its title, centred in the band's height. */
const band = (content: CardContent): Element =>
  box({ flexGrow: 1, flexDirection: "column", justifyContent: "center", padding: "0 72px" }, [
    box({ fontSize: 30, letterSpacing: 4, textTransform: "uppercase", color: EMBER }, content.eyebrow),
    box(
      {
        marginTop: 18,
        fontSize: titleSize(content.title),
        lineHeight: 1.02,
        textTransform: "uppercase",
        // A title longer than three lines ends in an ellipsis rather than a word cut in half.
        display: "block",
        lineClamp: 3,
      },
      content.title,
    ),
  ]);

/** The card around `middle`: the Effect's band, or for the frame a box that marks its place. */
const card = (content: CardContent, middle: Element): Element =>
  box({ ...cardStyle, width: "100%", height: "100%", flexDirection: "column" }, [
    box(
      {
        padding: "44px 72px 28px",
        borderBottom: `8px solid ${EMBER}`,
        fontSize: 40,
        letterSpacing: 3,
        textTransform: "uppercase",
      },
      content.brandName,
    ),
    middle,
    box({ padding: "0 72px 40px", fontSize: 26, letterSpacing: 2, color: MUTED }, content.site),
  ]);

/** An element as RGBA pixels: satori lays it out as SVG (text as paths), resvg rasterizes that. */
async function pixels(element: Element, height: number): Promise<Uint8Array> {
  const svg = await satori(element as never, { width: CARD_WIDTH, height, fonts: fonts() });
  return new Resvg(svg, { font: { loadSystemFonts: false } }).render().pixels;
}

/** The card as an SVG, drawn whole (what the frame and the band put together equal). */
export async function cardSvg(content: CardContent): Promise<string> {
  return satori(card(content, band(content)) as never, {
    width: CARD_WIDTH,
    height: CARD_HEIGHT,
    fonts: fonts(),
  });
}

const rows = new IndexedRows(CARD_WIDTH, CARD_PALETTE);

/** Where the frame leaves the Effect's band, filled in a colour no card has. */
const BAND_MARK = "#00ff00";

interface Frame {
  /** The frame as the PNG's rows. */
  rows: Buffer;
  top: number;
  height: number;
}

/** The frame of a brand and host, drawn once: its rows, and the band's place in it. */
async function drawFrame(content: CardContent): Promise<Frame> {
  const rgba = await pixels(card(content, box({ flexGrow: 1, backgroundColor: BAND_MARK })), CARD_HEIGHT);
  const [ink, ember, mark] = [INK, EMBER, BAND_MARK].map(rgb);
  const left = (y: number) => rgba.subarray(y * CARD_WIDTH * 4, y * CARD_WIDTH * 4 + 3);
  const is = (y: number, colour: Rgb) => left(y).every((value, at) => value === colour[at]);
  const band = Array.from({ length: CARD_HEIGHT }, (_, y) => y).filter((y) => is(y, mark));
  // The band's edges fall between rows (else a row would blend it with the frame, and show it).
  const clean = Array.from({ length: CARD_HEIGHT }, (_, y) => is(y, ink) || is(y, ember) || is(y, mark));
  if (band.length === 0 || !clean.every(Boolean)) {
    throw new Error(
      `The social cards' frame leaves no clean band for the Effect (brand "${content.brandName}")`,
    );
  }
  const data = Buffer.alloc(rows.stride * CARD_HEIGHT);
  rows.write(rgba, data);
  return { rows: data, top: band[0], height: band.length };
}

/** The frames drawn by this process (or thread), by brand and host: one, in a build. */
const frames = new Map<string, Promise<Frame>>();
function frame(content: CardContent): Promise<Frame> {
  const key = JSON.stringify([content.brandName, content.site]);
  let drawn = frames.get(key);
  if (!drawn) {
    drawn = drawFrame(content);
    frames.set(key, drawn);
  }
  return drawn;
}

/**
 * The card as a PNG of 16 colours given in advance (src/effects/palette-png.ts): four flat colours
 * and the edges of anti-aliased text need no more; 10 to 16 KB.
 */
export async function drawCard(content: CardContent): Promise<Buffer> {
  const { rows: frameRows, top, height } = await frame(content);
  const middle = await pixels(
    box({ ...cardStyle, width: "100%", height: "100%", flexDirection: "column" }, band(content)),
    height,
  );
  const data = Buffer.from(frameRows);
  rows.write(middle, data, top);
  return indexedPng(rows, CARD_HEIGHT, data);
}
