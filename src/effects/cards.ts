/**
 * Each published Effect's social card, `/effects/YYYY-MM-DD/card.png` (1200x630): its title, its
 * day and the brand's name in the site's look (ink, cream, ember, the display face Anton), which
 * its page names as `og:image` and `twitter:image`. Drawn at build time by satori (layout and text
 * as SVG paths, https://github.com/vercel/satori), rasterized by resvg (@resvg/resvg-js, a third
 * faster than sharp's librsvg here) and written as a 16-colour PNG (./palette-png.ts). A drawn
 * card is kept in a cache keyed by what it shows and the drawing's version, so an unchanged Effect
 * is not drawn again by the next build.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { types } from "node:util";
import { threadId } from "node:worker_threads";
import satori from "satori";
import { Resvg } from "@resvg/resvg-js";
import { dayLabel } from "../../supabase/functions/_shared/contract/calendar-day";
import { effectCardPath } from "./paths";
import { drawOnThreads } from "./card-threads";
import { IndexedRows, indexedPng, type Rgb } from "./palette-png";
import { removeUnpublishedDayFiles } from "./stale-days";

export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

/**
 * The drawing's own version: change it with the layout below, so every card is drawn again. The
 * libraries' versions are part of the cache key too.
 */
const DRAWING_VERSION = "4";

/** The site's colours (tailwind.config.js). */
const INK = "#1c1917";
const CREAM = "#faf6f0";
const EMBER = "#f59e0b";
const MUTED = "#d6d3d1";

/** What a card shows; the cache key is made of exactly this. */
export interface CardContent {
  brandName: string;
  /** The line above the title: the newsletter's name and the Effect's day. */
  eyebrow: string;
  title: string;
  /** The site's host name, at the foot of the card. */
  site: string;
}

// Gatsby bundles gatsby-node.ts and its imports, which leaves no `require.resolve`: resolve from the project.
const requireFromRoot = createRequire(path.resolve("package.json"));

/** Found by its package.json, which every package exports (a test runner may map a font's own path). */
const packageDir = (name: string): string => path.dirname(requireFromRoot.resolve(`${name}/package.json`));
const packageVersion = (name: string): string =>
  (JSON.parse(readFileSync(path.join(packageDir(name), "package.json"), "utf8")) as { version: string })
    .version;

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

const rgb = (hex: string): Rgb => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)) as never;

/** `count` colours evenly between the ink and `colour`: the edges of text drawn in it. */
function blends(colour: string, count: number): Rgb[] {
  const [ink, to] = [rgb(INK), rgb(colour)];
  return Array.from({ length: count }, (_, step) => {
    const share = (step + 1) / (count + 1);
    return ink.map((value, at) => Math.round(value + (to[at] - value) * share)) as never;
  });
}

/** The card's 16 colours: the site's four, and the edges of the large cream, small ember and grey text. */
const PALETTE: Rgb[] = [
  ...[INK, CREAM, EMBER, MUTED].map(rgb),
  ...blends(CREAM, 5),
  ...blends(EMBER, 4),
  ...blends(MUTED, 3),
];

const rows = new IndexedRows(CARD_WIDTH, PALETTE);

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

let drawingVersions: string[] | undefined;

/** The cache key: what the card shows, the drawing's version and the drawing libraries' versions. */
export function cardKey(content: CardContent): string {
  // Read once: a build makes thousands of keys.
  drawingVersions ??= [DRAWING_VERSION, packageVersion("satori"), packageVersion("@resvg/resvg-js")];
  return createHash("sha256")
    .update(JSON.stringify([...drawingVersions, content]))
    .digest("hex")
    .slice(0, 32);
}

/**
 * The cards' cache, git-ignored. Not in Gatsby's `.cache/`, which Gatsby empties whenever
 * package.json or its own files change: a year of cards would then be drawn again for nothing.
 * The key says everything a card depends on, so the site's and the tests' builds can share it.
 */
export const CARD_CACHE_DIR = ".effect-cards";

/** A cached card no build has used for this long is deleted. */
const UNUSED_CARD_DAYS = 30;

/**
 * Draws the card into the cache's `file`, under a temporary name then renamed, so a build killed
 * mid-write leaves no half card.
 */
export async function drawIntoCache(content: CardContent, file: string): Promise<Buffer> {
  const png = await drawCard(content);
  await mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}-${threadId}.tmp`;
  await writeFile(partial, png);
  await rename(partial, file);
  return png;
}

const cacheFile = (content: CardContent, cacheDir: string) => path.join(cacheDir, `${cardKey(content)}.png`);

/** The card's PNG from the cache, or drawn and put there; `drawn` says which. */
export async function cachedCard(
  content: CardContent,
  cacheDir: string,
): Promise<{ png: Buffer; drawn: boolean }> {
  const file = cacheFile(content, cacheDir);
  try {
    return { png: await readFile(file), drawn: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return { png: await drawIntoCache(content, file), drawn: true };
}

export interface CardsSource {
  /** The Effects the build published. */
  published: readonly { date: string; title: string }[];
  brand: { name: string; siteUrl: string };
  /** content/effect-pages.yaml `effect.eyebrow`: "Effect of the Day". */
  eyebrow: string;
  cacheDir?: string;
}

/** What a published Effect's card shows. */
export const cardContent = (
  effect: { date: string; title: string },
  { brand, eyebrow }: Pick<CardsSource, "brand" | "eyebrow">,
): CardContent => ({
  brandName: brand.name,
  eyebrow: `${eyebrow} · ${dayLabel(effect.date)}`,
  title: effect.title,
  site: new URL(brand.siteUrl).host,
});

/** Below this many cards to draw, starting threads costs more than it saves. */
const CARDS_A_THREAD = 16;

/** The cards a build is drawing into its cache, by cache file: begun by `startDrawingCards`, awaited by `writeEffectCards`. */
const drawing = new Map<string, Promise<void>>();

const failed = (effect: { date: string; title: string }, error: unknown) =>
  new Error(
    `The social card of the Effect of ${effect.date} ("${effect.title}") could not be drawn: ` +
      // An error from another realm (a test's sandbox) too.
      (types.isNativeError(error) ? error.message : String(error)),
  );

/**
 * Starts drawing into the cache every published Effect's card that is not there yet: on worker
 * threads, one a core (./card-threads.ts), when there are enough; else here, one after another.
 * `writeEffectCards` waits for them, so the build can start this as soon as it knows its Effects
 * and the cards are drawn while it renders the pages. Says how many it began, on how many threads.
 */
export function startDrawingCards({ published, brand, eyebrow, cacheDir = CARD_CACHE_DIR }: CardsSource): {
  cards: number;
  threads: number;
} {
  const missing = published
    .map((effect) => {
      const content = cardContent(effect, { brand, eyebrow });
      return { effect, content, file: cacheFile(content, cacheDir) };
    })
    .filter(({ file }) => !drawing.has(file) && !existsSync(file));
  const threads = Math.min(availableParallelism(), Math.floor(missing.length / CARDS_A_THREAD));
  let previous: Promise<unknown> = Promise.resolve();
  const drawn =
    threads > 1
      ? drawOnThreads(missing, threads)
      : missing.map(({ content, file }) => {
          // In turn, whether the card before could be drawn or not.
          const draw = () => drawIntoCache(content, file);
          return (previous = previous.then(draw, draw));
        });
  for (const [at, { effect, file }] of missing.entries()) {
    const card = drawn[at].then(
      () => undefined,
      (error: unknown) => Promise.reject(failed(effect, error)),
    );
    // Awaited, and its failure reported, by writeEffectCards; until then it is not unhandled.
    card.catch(() => undefined);
    drawing.set(file, card);
  }
  return { cards: missing.length, threads: Math.max(1, threads) };
}

/**
 * Writes each published Effect's card into the built site, drawing only those not in the cache
 * (or waiting for those `startDrawingCards` began), and removes the card of a day no longer
 * published (and its folder, if nothing else is left). Fails naming the first Effect whose card
 * could not be drawn.
 */
export async function writeEffectCards(
  publicDir: string,
  source: CardsSource,
): Promise<{ drawn: number; cached: number }> {
  const { published, brand, eyebrow, cacheDir = CARD_CACHE_DIR } = source;
  const fileOf = (date: string) => path.join(publicDir, ...effectCardPath(date).split("/"));
  await removeUnpublishedDayFiles(
    path.dirname(path.dirname(fileOf("x"))),
    new Set(published.map((e) => e.date)),
    "card.png",
  );
  startDrawingCards(source);
  const counts = { drawn: 0, cached: 0 };
  const used = new Set<string>();
  const queue = [...published];
  // A few at a time: the copies are the disk's work, the drawing the threads'.
  const copier = async () => {
    for (let effect = queue.shift(); effect; effect = queue.shift()) {
      const file = cacheFile(cardContent(effect, { brand, eyebrow }), cacheDir);
      used.add(path.basename(file));
      const drawn = drawing.get(file);
      drawing.delete(file);
      await drawn;
      counts[drawn ? "drawn" : "cached"] += 1;
      await mkdir(path.dirname(fileOf(effect.date)), { recursive: true });
      await copyFile(file, fileOf(effect.date));
    }
  };
  await Promise.all(Array.from({ length: 8 }, copier));
  await pruneCache(cacheDir, used);
  return counts;
}

/**
 * Deletes the cached cards this build did not use and none has used for `UNUSED_CARD_DAYS`: the
 * cards of edited titles, of Effects deleted, of an older drawing. (A card's time is when it was
 * drawn or last used.)
 */
async function pruneCache(cacheDir: string, used: ReadonlySet<string>): Promise<void> {
  if (used.size === 0) return;
  const now = new Date();
  await Promise.all([...used].map((name) => utimes(path.join(cacheDir, name), now, now)));
  const before = now.getTime() - UNUSED_CARD_DAYS * 86_400_000;
  for (const name of await readdir(cacheDir)) {
    if (used.has(name)) continue;
    const file = path.join(cacheDir, name);
    if ((await stat(file)).mtimeMs < before) await rm(file, { force: true });
  }
}
