/**
 * The social cards' cache: a drawn card kept under a key made of what it shows and the drawing's
 * versions (./card-layout.ts), so an unchanged Effect is not drawn again by the next build, and the
 * cards no build has used for a month deleted.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { threadId } from "node:worker_threads";
import { drawCard, drawingVersions, type CardContent } from "./card-layout";

/**
 * The cards' cache, git-ignored. Not in Gatsby's `.cache/`, which Gatsby empties whenever
 * package.json or its own files change: a year of cards would then be drawn again for nothing.
 * The key says everything a card depends on, so the site's and the tests' builds can share it.
 */
export const CARD_CACHE_DIR = ".effect-cards";

/** A cached card no build has used for this long is deleted. */
const UNUSED_CARD_DAYS = 30;

/** The cache key: what the card shows, the drawing's version and the drawing libraries' versions. */
export function cardKey(content: CardContent): string {
  return createHash("sha256")
    .update(JSON.stringify([...drawingVersions(), content]))
    .digest("hex")
    .slice(0, 32);
}

export const cacheFile = (content: CardContent, cacheDir: string) =>
  path.join(cacheDir, `${cardKey(content)}.png`);

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

/**
 * Deletes the cached cards this build did not use and none has used for `UNUSED_CARD_DAYS`: the
 * cards of edited titles, of Effects deleted, of an older drawing. (A card's time is when it was
 * drawn or last used.)
 */
export async function pruneCache(cacheDir: string, used: ReadonlySet<string>): Promise<void> {
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
