/**
 * Whether the site needs a build: `public/index.html` missing, or older than a source file in
 * src/, content/, static/, a gatsby-*.ts file, the Tailwind and PostCSS configuration or the
 * installed dependencies' lock, or made for another day's Effects (or another set of them, see
 * `EFFECTS_DIR`) than the one asked for now; and builds it then. Tests (`__tests__`) do not change
 * the build.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { readBrand } from "../src/content/read-brand";
import { readTextVariable, readVariable } from "../supabase/functions/_shared/config/variables";
import {
  effectsDir,
  publicationDay,
  PUBLICATION_RECORD,
  type PublicationRecord,
} from "../src/effects/effects";

interface Newest {
  file: string;
  mtimeMs: number;
}

/** The most recently changed file under `target` (bounded depth; node_modules and dot folders skipped). */
function newest(target: string, depth = 0): Newest | null {
  if (!existsSync(target) || depth > 20) return null;
  const stats = statSync(target);
  if (stats.isFile()) return { file: target, mtimeMs: stats.mtimeMs };
  let best: Newest | null = null;
  for (const entry of readdirSync(target, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === "__tests__") continue;
    const found = newest(path.join(target, entry.name), depth + 1);
    if (found && (!best || found.mtimeMs > best.mtimeMs)) best = found;
  }
  return best;
}

/** Why the last build's Effects are not the ones `env` asks for, or null when they are. */
function publicationReason(root: string, env: NodeJS.ProcessEnv): string | null {
  const recordFile = path.join(root, PUBLICATION_RECORD);
  if (!existsSync(recordFile)) return "no record of which Effects the last build published";
  const record = JSON.parse(readFileSync(recordFile, "utf8")) as PublicationRecord;
  const dir = effectsDir(env, root);
  if (record.effectsDir !== dir) {
    return `the last build published the Effects in ${path.relative(root, record.effectsDir)}, not ${path.relative(root, dir)}`;
  }
  let today: string;
  try {
    today = publicationDay(
      readVariable(env, "EFFECTS_TODAY") ? "UTC" : readBrand(path.join(root, "content")).timeZone,
      env,
    );
  } catch (error) {
    // The build reports it with the file and the field.
    return error instanceof Error ? error.message : String(error);
  }
  return record.today === today
    ? null
    : `the last build published the Effects up to ${record.today}, not ${today}`;
}

export function buildReason(
  root: string,
  publicDir = path.join(root, "public"),
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  const built = path.join(publicDir, "index.html");
  if (!existsSync(built)) return `${path.relative(root, built)} is missing`;
  const sources = [
    ...["src", "content", "static"].map((dir) => path.join(root, dir)),
    effectsDir(env, root),
    ...readdirSync(root)
      .filter((name) =>
        /^(gatsby-.*\.tsx?|tailwind\.config\.js|postcss\.config\.js|package-lock\.json)$/.test(name),
      )
      .map((name) => path.join(root, name)),
  ];
  const builtAt = statSync(built).mtimeMs;
  const changed = sources.map((source) => newest(source)).find((found) => found && found.mtimeMs > builtAt);
  if (changed) return `${path.relative(root, changed.file)} changed since the last build`;
  return publicationReason(root, env);
}

/**
 * Builds the site (`gatsby build`) when `buildReason` gives one, saying why in one line: what
 * `npm start`, the browser tests and the benchmarks run before they serve `public/`. Throws when
 * the build fails (its own messages are already on the terminal).
 */
export function buildSiteIfStale(
  root = path.resolve(__dirname, ".."),
  publicDir?: string,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const reason = buildReason(root, publicDir, env);
  if (!reason) {
    console.log(
      "The site is up to date: public/ is newer than its sources (src/, content/, static/, the configuration).",
    );
    return;
  }
  console.log(`Building the site: ${reason}.`);
  const result = spawnSync(path.join(root, "node_modules/.bin/gatsby"), ["build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...env, GATSBY_TELEMETRY_DISABLED: readTextVariable(env, "GATSBY_TELEMETRY_DISABLED") },
  });
  if (result.status !== 0) throw new Error("The site did not build; see the messages above.");
}
