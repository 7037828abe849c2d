/**
 * Whether the site needs a build: `public/index.html` missing, or older than a source file in
 * src/, content/, static/, a gatsby-*.ts file, the Tailwind and PostCSS configuration or the
 * installed dependencies' lock, or made for another day's Effects (or another set of them, see
 * `EFFECTS_DIR`) than the one asked for now; and builds it then. Tests (`__tests__`) do not change
 * the build.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
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
    // The site's sources, and the modules gatsby-node.ts and gatsby-config.ts import from beside them.
    ...["src", "content", "static", "scripts", "site-headers", "supabase/functions/_shared"].map((dir) =>
      path.join(root, dir),
    ),
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
 * `npm start`, the browser tests and the benchmarks run before they serve it. Throws when the
 * build fails (its own messages are already on the terminal).
 *
 * Gatsby always builds into `public/`. A build for another folder (the browser tests' own,
 * `.test-site/`, with their fixture Effects) moves the developer's `public/` aside first and puts
 * it back afterwards, also when the build fails, so `npm start`'s site is never replaced by the
 * tests'. A folder left aside by a build that was killed is put back at the next one.
 */
export function buildSiteIfStale(
  root = path.resolve(__dirname, ".."),
  publicDir = path.join(root, "public"),
  env: NodeJS.ProcessEnv = process.env,
): void {
  const defaultDir = path.join(root, "public");
  const aside = path.join(root, ".public-aside");
  if (existsSync(aside)) {
    // A build for another folder was killed: `public/` holds its half-built site.
    rmSync(defaultDir, { recursive: true, force: true });
    renameSync(aside, defaultDir);
  }
  const reason = buildReason(root, publicDir, env);
  const shown = path.relative(root, publicDir) || publicDir;
  if (!reason) {
    console.log(
      `The site is up to date: ${shown}/ is newer than its sources (src/, content/, static/, the configuration).`,
    );
    return;
  }
  console.log(`Building the site into ${shown}/: ${reason}.`);
  const elsewhere = path.resolve(publicDir) !== defaultDir;
  if (elsewhere) {
    if (existsSync(defaultDir)) renameSync(defaultDir, aside);
    // The folder's last build, as Gatsby's starting point.
    if (existsSync(publicDir)) renameSync(publicDir, defaultDir);
  }
  try {
    const result = spawnSync(path.join(root, "node_modules/.bin/gatsby"), ["build"], {
      cwd: root,
      stdio: "inherit",
      env: { ...env, GATSBY_TELEMETRY_DISABLED: readTextVariable(env, "GATSBY_TELEMETRY_DISABLED") },
    });
    if (result.status !== 0) throw new Error("The site did not build; see the messages above.");
  } finally {
    if (elsewhere) {
      rmSync(publicDir, { recursive: true, force: true });
      if (existsSync(defaultDir)) renameSync(defaultDir, publicDir);
      if (existsSync(aside)) renameSync(aside, defaultDir);
    }
  }
}
