/**
 * Each published Effect's social card, `/effects/YYYY-MM-DD/card.png` (1200x630): its title, its
 * day and the brand's name in the site's look (ink, cream, ember, the display face Anton), which
 * its page names as `og:image` and `twitter:image`. Drawn at build time by satori (layout and text
 * as SVG paths, https://github.com/vercel/satori) and turned into a palette PNG by sharp, the
 * image library the build already has. A drawn card is kept in a cache keyed by what it shows and
 * the drawing's version, so an unchanged Effect is not drawn again by the next build.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import satori from "satori";
import sharp from "sharp";
import { dayLabel } from "../../supabase/functions/_shared/contract/calendar-day";
import { effectCardPath } from "./paths";
import { removeUnpublishedDayFiles } from "./stale-days";

export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

/**
 * The drawing's own version: change it with the layout below, so every card is drawn again. The
 * libraries' versions are part of the cache key too.
 */
const DRAWING_VERSION = "3";

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

/** The card as an SVG (text as paths, so it renders the same anywhere). */
export async function cardSvg(content: CardContent): Promise<string> {
  const size = titleSize(content.title);
  const card = box(
    {
      width: "100%",
      height: "100%",
      flexDirection: "column",
      backgroundColor: INK,
      color: CREAM,
      fontFamily: "Anton",
    },
    [
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
      box({ flexGrow: 1, flexDirection: "column", justifyContent: "center", padding: "0 72px" }, [
        box({ fontSize: 30, letterSpacing: 4, textTransform: "uppercase", color: EMBER }, content.eyebrow),
        box(
          {
            marginTop: 18,
            fontSize: size,
            lineHeight: 1.02,
            textTransform: "uppercase",
            // A title longer than three lines ends in an ellipsis rather than a word cut in half.
            display: "block",
            lineClamp: 3,
          },
          content.title,
        ),
      ]),
      box({ padding: "0 72px 40px", fontSize: 26, letterSpacing: 2, color: MUTED }, content.site),
    ],
  );
  return satori(card as never, { width: CARD_WIDTH, height: CARD_HEIGHT, fonts: fonts() });
}

/**
 * The card as a PNG of 16 colours: four flat colours and the edges of anti-aliased text need no
 * more. Choosing the palette is most of a card's cost, so at its fastest setting and undithered,
 * with zlib's default level: about 12 KB, a third of the time of the finest settings for 3% more
 * bytes (`npm run bench:cards`).
 */
export async function drawCard(content: CardContent): Promise<Buffer> {
  return sharp(Buffer.from(await cardSvg(content)))
    .png({ palette: true, colours: 16, effort: 1, dither: 0, compressionLevel: 6 })
    .toBuffer();
}

/** The cache key: what the card shows, the drawing's version and the drawing libraries' versions. */
export function cardKey(content: CardContent): string {
  return createHash("sha256")
    .update(JSON.stringify([DRAWING_VERSION, packageVersion("satori"), packageVersion("sharp"), content]))
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
 * The card's PNG from the cache, or drawn and put there; `drawn` says which. A card is written
 * under a temporary name and renamed, so a build killed mid-write leaves no half card.
 */
export async function cachedCard(
  content: CardContent,
  cacheDir: string,
): Promise<{ png: Buffer; drawn: boolean }> {
  const file = path.join(cacheDir, `${cardKey(content)}.png`);
  try {
    return { png: await readFile(file), drawn: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const png = await drawCard(content);
  await mkdir(cacheDir, { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, png);
  await rename(partial, file);
  return { png, drawn: true };
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

/**
 * Writes each published Effect's card into the built site, drawing only those not in the cache,
 * and removes the card of a day no longer published (and its folder, if nothing else is left).
 */
export async function writeEffectCards(
  publicDir: string,
  { published, brand, eyebrow, cacheDir = CARD_CACHE_DIR }: CardsSource,
): Promise<{ drawn: number; cached: number }> {
  const counts = { drawn: 0, cached: 0 };
  const used = new Set<string>();
  const fileOf = (date: string) => path.join(publicDir, ...effectCardPath(date).split("/"));
  await removeUnpublishedDayFiles(
    path.dirname(path.dirname(fileOf("x"))),
    new Set(published.map((e) => e.date)),
    "card.png",
  );
  // A few at a time: drawing is CPU work, and the cache reads overlap it.
  const queue = [...published];
  const worker = async () => {
    for (let effect = queue.shift(); effect; effect = queue.shift()) {
      const content = cardContent(effect, { brand, eyebrow });
      used.add(`${cardKey(content)}.png`);
      const { png, drawn } = await cachedCard(content, cacheDir);
      counts[drawn ? "drawn" : "cached"] += 1;
      await mkdir(path.dirname(fileOf(effect.date)), { recursive: true });
      await writeFile(fileOf(effect.date), png);
    }
  };
  await Promise.all([worker(), worker()]);
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
