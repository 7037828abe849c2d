/**
 * Reads the Effects of the Day (`content/effects/YYYY-MM-DD.yaml`), checks each one as the other
 * content is checked, and decides which are published: those dated up to the build's day in the
 * brand's time zone, so editors can write ahead.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { checkContent, effectFields, type EffectContent } from "../content/schema";
import { readYaml } from "../content/yaml";
import { dayIn, isCalendarDay } from "../../supabase/functions/_shared/calendar-day";
import { readTextVariable, readVariable } from "../../supabase/functions/_shared/config/variables";

export interface Effect extends EffectContent {
  /** YYYY-MM-DD, from the file's name. */
  readonly date: string;
  /** Where it was read from, as an editor names it (content/effects/2026-11-21.yaml). */
  readonly file: string;
}

/** Where the Effects are read from; `EFFECTS_DIR` (relative to `root`) points a test build at its own set. */
export const effectsDir = (env: NodeJS.ProcessEnv = process.env, root = process.cwd()): string =>
  path.resolve(root, readTextVariable(env, "EFFECTS_DIR"));

const YAML_FILE = /\.ya?ml$/;

/**
 * Every Effect in `dir`, oldest first, and every problem found, each naming the file and, where
 * there is one, the field. A build with any problem must stop: `problems` is then not empty.
 */
export function loadEffects(dir: string): { effects: Effect[]; problems: string[] } {
  const shown = (name: string) => path.relative(process.cwd(), path.join(dir, name)) || name;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    // No folder yet: nothing to publish, which is not an error.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { effects: [], problems: [] };
    throw error;
  }
  const effects: Effect[] = [];
  const problems: string[] = [];
  const fileOfDay = new Map<string, string>();
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const file = shown(entry.name);
    if (!entry.isFile() || !YAML_FILE.test(entry.name)) {
      problems.push(`${file}: only Effects belong here, one file per day named YYYY-MM-DD.yaml`);
      continue;
    }
    const date = entry.name.replace(YAML_FILE, "");
    if (!isCalendarDay(date)) {
      problems.push(
        `${file}: the file name must be the Effect's date as YYYY-MM-DD.yaml, a real day (got "${date}")`,
      );
      continue;
    }
    const earlier = fileOfDay.get(date);
    if (earlier) {
      problems.push(`${file}: two Effects on ${date} (the other is ${earlier}); keep one per day`);
      continue;
    }
    fileOfDay.set(date, file);
    let data: unknown;
    try {
      data = readYaml(readFileSync(path.join(dir, entry.name), "utf8"), file);
    } catch (error) {
      problems.push(`${file}: not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const fieldProblems = checkContent(effectFields, data);
    if (fieldProblems.length > 0) {
      problems.push(`${file}: ${fieldProblems.join("; ")}`);
      continue;
    }
    effects.push({ ...(data as EffectContent), date, file });
  }
  return { effects, problems };
}

/**
 * The build's day: `EFFECTS_TODAY` (YYYY-MM-DD) when set, for previews and tests, otherwise the
 * day it is now in the brand's time zone.
 */
export function publicationDay(
  timeZone: string,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): string {
  const override = readVariable(env, "EFFECTS_TODAY");
  if (override) {
    if (!isCalendarDay(override)) {
      throw new Error(`EFFECTS_TODAY must be a day written YYYY-MM-DD, e.g. 2026-11-21 (got "${override}")`);
    }
    return override;
  }
  return dayIn(timeZone, now);
}

/**
 * What a build published, kept beside Gatsby's cache: a build for another day or another set of
 * Effects (a test's) is not the one `npm start` or the browser tests want.
 */
export interface PublicationRecord {
  today: string;
  effectsDir: string;
}
export const PUBLICATION_RECORD = path.join(".cache", "effects-publication.json");

/** The Effects a build on `today` publishes, newest first; later ones wait for their day. */
export function publishedEffects(effects: readonly Effect[], today: string): Effect[] {
  return effects.filter((effect) => effect.date <= today).sort((a, b) => b.date.localeCompare(a.date));
}
