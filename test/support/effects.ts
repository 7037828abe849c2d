// The browser tests' own Effects.
import path from "node:path";
import { loadEffects, publishedEffects } from "../../src/effects/effects";
import { readContent } from "./content";
import type { EffectPages } from "../../src/content/schema";
import { ROOT } from "./stack";

/**
 * The browser tests' own Effects, built as if it were 2026-10-22: 22 published (two archive pages)
 * and one, 2026-10-23, scheduled for the next day. The global setup builds the site with these.
 */
export const E2E_EFFECTS_ENV = { EFFECTS_DIR: "e2e/fixtures/effects", EFFECTS_TODAY: "2026-10-22" } as const;

const loaded = loadEffects(path.join(ROOT, E2E_EFFECTS_ENV.EFFECTS_DIR));
if (loaded.problems.length > 0) throw new Error(loaded.problems.join("\n"));

export const allEffects = loaded.effects;
/** Newest first, as the archive lists them. */
export const publishedFixtures = publishedEffects(allEffects, E2E_EFFECTS_ENV.EFFECTS_TODAY);
export const scheduledFixtures = allEffects.filter((effect) => effect.date > E2E_EFFECTS_ENV.EFFECTS_TODAY);

export const effectTexts = readContent<EffectPages>("effect-pages");
