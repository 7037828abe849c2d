/**
 * The build's step for the Effects' social cards (src/effects/cards.ts): the longest of the files
 * written beside the pages, so begun in onPreBuild, as soon as the pages are made, on threads of
 * their own while Gatsby renders the pages, and written beside the pages in onPostBuild.
 *
 * The drawing begun in the one hook is found by the other through the `cache` Gatsby gives both
 * (the site's own, one object for the whole build): Gatsby's cache keeps only JSON, and a drawing
 * in progress is threads and promises, so it is kept beside that object rather than in it.
 */
import type { GatsbyCache } from "gatsby";
import { CardDrawing, type CardsSource } from "../src/effects/cards";
import { type Effect, publishedEffects } from "../src/effects/effects";
import type { Brand, EffectPages } from "../src/content/schema";
import { readTextVariable } from "../supabase/functions/_shared/contract/variables";
import { type BuildStepArgs, PUBLIC_DIR, query } from "./build-step";
import { publishedDay } from "./published-day";

export interface CardsStepArgs extends BuildStepArgs {
  cache: GatsbyCache;
}

const drawings = new WeakMap<GatsbyCache, CardDrawing>();

/** What the cards of the Effects published up to `today` show, and where they are kept. */
async function cardsSource(build: BuildStepArgs, today: string): Promise<Required<CardsSource>> {
  const data = await query<{
    brand: Pick<Brand, "name" | "siteUrl">;
    effectPages: { effect: Pick<EffectPages["effect"], "eyebrow"> };
    allEffect: { nodes: Pick<Effect, "date" | "title">[] };
  }>(
    build,
    "the Effects' cards",
    `
      query EffectCards {
        brand {
          name
          siteUrl
        }
        effectPages {
          effect {
            eyebrow
          }
        }
        allEffect {
          nodes {
            date
            title
          }
        }
      }
    `,
  );
  return {
    published: publishedEffects(data.allEffect.nodes, today),
    brand: data.brand,
    eyebrow: data.effectPages.effect.eyebrow,
    cacheDir: readTextVariable(process.env, "EFFECT_CARDS_DIR"),
  };
}

/** onPreBuild: begins drawing the cards the cache lacks. */
export async function beginSocialCards(build: CardsStepArgs): Promise<void> {
  let source: CardsSource;
  try {
    const today = await publishedDay(build);
    if (today === null) return;
    source = await cardsSource(build, today);
  } catch {
    // onPostBuild reads the same and says what is wrong; until then, nothing to begin.
    return;
  }
  const drawing = new CardDrawing();
  drawings.set(build.cache, drawing);
  const begun = drawing.begin(source);
  if (begun.cards > 0) {
    build.reporter.info(
      `Effect cards: drawing ${begun.cards} on ${begun.threads} thread(s) while the pages are built`,
    );
  }
}

/** onPostBuild: every published Effect's card beside its page, waiting for those begun. */
export async function writeSocialCards(build: CardsStepArgs, today: string): Promise<void> {
  const source = await cardsSource(build, today);
  const drawing = drawings.get(build.cache) ?? new CardDrawing();
  drawings.delete(build.cache);
  const started = performance.now();
  const cards = await drawing.write(PUBLIC_DIR, source);
  build.reporter.info(
    `Effect cards: ${cards.drawn} drawn, ${cards.cached} from the cache (${source.cacheDir}), ` +
      `in ${Math.round(performance.now() - started)} ms`,
  );
}
