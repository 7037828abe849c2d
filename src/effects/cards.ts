/**
 * A build's social cards, `/effects/YYYY-MM-DD/card.png` beside each published Effect's page
 * (drawn by ./card-layout.ts, kept by ./card-cache.ts): a `CardDrawing` begins drawing the cards
 * the cache lacks as soon as the build knows its Effects, on worker threads when there are enough
 * (./card-threads.ts), and writes them into the built site once it is built. The drawing is the
 * object's, handed from one step to the next by whoever holds it; this module keeps none.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { types } from "node:util";
import { CARD_CACHE_DIR, cacheFile, drawIntoCache, pruneCache } from "./card-cache";
import { cardContent } from "./card-layout";
import { drawOnThreads } from "./card-threads";
import { effectCardPath } from "./paths";
import { removeUnpublishedDayFiles } from "./stale-days";

export interface CardsSource {
  /** The Effects the build published. */
  published: readonly { date: string; title: string }[];
  brand: { name: string; siteUrl: string };
  /** content/effect-pages.yaml `effect.eyebrow`: "Effect of the Day". */
  eyebrow: string;
  cacheDir?: string;
}

/** Below this many cards to draw, starting threads costs more than it saves. */
const CARDS_A_THREAD = 16;

const failed = (effect: { date: string; title: string }, error: unknown) =>
  new Error(
    `The social card of the Effect of ${effect.date} ("${effect.title}") could not be drawn: ` +
      // An error from another realm (a test's sandbox) too.
      (types.isNativeError(error) ? error.message : String(error)),
  );

/** One build's drawing of its cards: begun early (`begin`), written into the built site (`write`). */
export class CardDrawing {
  /** The cards being drawn into the cache, by cache file: begun by `begin`, awaited by `write`. */
  private readonly drawing = new Map<string, Promise<void>>();

  /**
   * Starts drawing into the cache every published Effect's card that is not there yet: on worker
   * threads, one a core (./card-threads.ts), when there are enough; else here, one after another.
   * `write` waits for them, so the build can start this as soon as it knows its Effects and the
   * cards are drawn while it renders the pages. Says how many it began, on how many threads.
   */
  begin({ published, brand, eyebrow, cacheDir = CARD_CACHE_DIR }: CardsSource): {
    cards: number;
    threads: number;
  } {
    const missing = published
      .map((effect) => {
        const content = cardContent(effect, { brand, eyebrow });
        return { effect, content, file: cacheFile(content, cacheDir) };
      })
      .filter(({ file }) => !this.drawing.has(file) && !existsSync(file));
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
      // Awaited, and its failure reported, by write; until then it is not unhandled.
      card.catch(() => undefined);
      this.drawing.set(file, card);
    }
    return { cards: missing.length, threads: Math.max(1, threads) };
  }

  /**
   * Writes each published Effect's card into the built site, drawing only those not in the cache
   * (or waiting for those `begin` began), and removes the card of a day no longer published (and
   * its folder, if nothing else is left). Fails naming the first Effect whose card could not be
   * drawn, once no copy and no drawing it began is still writing: nothing touches the site or the
   * cache after the build has failed.
   */
  async write(publicDir: string, source: CardsSource): Promise<{ drawn: number; cached: number }> {
    const { published, brand, eyebrow, cacheDir = CARD_CACHE_DIR } = source;
    const fileOf = (date: string) => path.join(publicDir, ...effectCardPath(date).split("/"));
    await removeUnpublishedDayFiles(
      path.dirname(path.dirname(fileOf("x"))),
      new Set(published.map((e) => e.date)),
      "card.png",
    );
    this.begin(source);
    const counts = { drawn: 0, cached: 0 };
    const used = new Set<string>();
    const queue = [...published];
    // A few at a time: the copies are the disk's work, the drawing the threads'.
    let failure: { error: unknown } | undefined;
    const copier = async () => {
      for (let effect = queue.shift(); effect && !failure; effect = queue.shift()) {
        const file = cacheFile(cardContent(effect, { brand, eyebrow }), cacheDir);
        used.add(path.basename(file));
        const drawn = this.drawing.get(file);
        this.drawing.delete(file);
        await drawn;
        counts[drawn ? "drawn" : "cached"] += 1;
        await mkdir(path.dirname(fileOf(effect.date)), { recursive: true });
        await copyFile(file, fileOf(effect.date));
      }
    };
    const copiers = Array.from({ length: 8 }, () =>
      copier().catch((error: unknown) => {
        failure ??= { error };
      }),
    );
    await Promise.all(copiers);
    if (failure) {
      // The cards no copier reached may still be drawing: they settle before the build fails.
      await Promise.allSettled(this.drawing.values());
      this.drawing.clear();
      throw failure.error;
    }
    await pruneCache(cacheDir, used);
    return counts;
  }
}

/** Draws what the cache lacks and writes every published Effect's card, in one go. */
export const writeEffectCards = (publicDir: string, source: CardsSource) =>
  new CardDrawing().write(publicDir, source);
