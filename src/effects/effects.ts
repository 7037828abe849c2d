/**
 * Reads the Effects of the Day (`content/effects/YYYY-MM-DD.yaml`), checks each one as the other
 * content is checked, and decides which are published: those dated up to the build's day in the
 * brand's time zone, so editors can write ahead.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { checkContent, effectFields, type EffectContent } from "../content/schema";
import { readYaml } from "../content/yaml";
import { dayIn, isCalendarDay } from "../../supabase/functions/_shared/contract/calendar-day";
import { readTextVariable, readVariable } from "../../supabase/functions/_shared/contract/variables";

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

/** The name of the Effects' folder as a source of the build's data layer (gatsby-config.ts). */
export const EFFECTS_SOURCE = "effects";
/** The node type of one file there, as read (src/effects/effect-nodes.ts makes an `Effect` of it). */
export const EFFECT_FILE_TYPE = "EffectFile";

/** A file in the Effects' folder as the build's data layer sees it (an `EffectFile` node) or the disk. */
export interface EffectFileText {
  /** Its path in the folder, e.g. `2026-11-21.yaml` (in a subfolder, with the subfolder in front). */
  name: string;
  /** Its text; undefined for a folder. */
  text?: string;
}

/**
 * Every Effect among `files`, oldest first, and every problem found, each naming the file (as
 * `shownDir/name`) and, where there is one, the field. A build with any problem must stop:
 * `problems` is then not empty. The build checks its nodes with this, `npm run check:content`
 * the folder (`loadEffects`).
 */
export function checkEffectFiles(
  files: readonly EffectFileText[],
  shownDir: string,
): { effects: Effect[]; problems: string[] } {
  const effects: Effect[] = [];
  const problems: string[] = [];
  const fileOfDay = new Map<string, string>();
  for (const entry of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.split("/").some((part) => part.startsWith("."))) continue;
    const file = path.posix.join(shownDir, entry.name);
    if (entry.text === undefined || entry.name.includes("/") || !YAML_FILE.test(entry.name)) {
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
      problems.push(twoOnOneDay(file, date, earlier));
      continue;
    }
    fileOfDay.set(date, file);
    let data: unknown;
    try {
      data = readYaml(entry.text, file);
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

/** The problem of a second file for a day that already has an Effect. */
export const twoOnOneDay = (file: string, date: string, earlier: string): string =>
  `${file}: two Effects on ${date} (the other is ${earlier}); keep one per day`;

/** How a folder is named in messages: relative to where the command runs, as an editor names it. */
export const shownFolder = (dir: string): string =>
  (path.relative(process.cwd(), dir) || ".").split(path.sep).join("/");

/** Every Effect in the folder `dir`, read from the disk and checked as the build checks its nodes. */
export function loadEffects(dir: string): { effects: Effect[]; problems: string[] } {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    // No folder yet: nothing to publish, which is not an error.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { effects: [], problems: [] };
    throw error;
  }
  const files = entries.map((entry) => ({
    name: entry.name,
    text: entry.isFile() ? readFileSync(path.join(dir, entry.name), "utf8") : undefined,
  }));
  return checkEffectFiles(files, shownFolder(dir));
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
      throw new Error("EFFECTS_TODAY must be a day written YYYY-MM-DD, e.g. 2026-11-21");
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
export function publishedEffects<T extends { date: string }>(effects: readonly T[], today: string): T[] {
  return effects.filter((effect) => effect.date <= today).sort((a, b) => b.date.localeCompare(a.date));
}
