/**
 * The build's steps for the archive's search (./search-index.ts makes the index): after the pages,
 * the built Effects' pages indexed, so a new Effect is found without anyone doing anything; under
 * `gatsby develop`, which writes no pages, each time the pages are made, from the Effects' fields.
 */
import { type Effect, publishedEffects } from "../src/effects/effects";
import { type BuildStepArgs, PUBLIC_DIR, query } from "./build-step";
import {
  DEVELOP_SEARCH_PAGES,
  type IndexedEffect,
  writeDevelopSearchIndex,
  writeSearchIndex,
} from "./search-index";

/** The built pages of the Effects published up to `today` (./published-day.ts), into public/pagefind/. */
export async function indexArchiveSearch(build: BuildStepArgs, today: string): Promise<void> {
  const { allEffect } = await query<{ allEffect: { nodes: Pick<Effect, "date">[] } }>(
    build,
    "the Effects to index",
    `
      query EffectsToIndex {
        allEffect {
          nodes {
            date
          }
        }
      }
    `,
  );
  const indexed = await writeSearchIndex(PUBLIC_DIR, publishedEffects(allEffect.nodes, today).length);
  build.reporter.info(`Search: ${indexed} Effects indexed into public/pagefind/`);
}

/**
 * Under `gatsby develop` the archive's search works too, over the Effects published today: the
 * build's index comes from its pages, which the development server never writes.
 */
export async function indexForDevelop(build: BuildStepArgs, today: string): Promise<void> {
  try {
    const { allEffect } = await query<{ allEffect: { nodes: IndexedEffect[] } }>(
      build,
      "the Effects to search",
      `
        query EffectsToSearch {
          allEffect {
            nodes {
              date
              dateLabel
              title
              html
            }
          }
        }
      `,
    );
    const published = publishedEffects(allEffect.nodes, today);
    await writeDevelopSearchIndex(PUBLIC_DIR, DEVELOP_SEARCH_PAGES, published);
  } catch (error) {
    // The development site goes on with the last index (./search-index.ts keeps it), and says why.
    build.reporter.warn(
      `The archive's search is not updated: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
