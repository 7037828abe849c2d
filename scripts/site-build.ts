/**
 * Whether the site needs a build: `public/index.html` missing, a file the build reads
 * (BUILD_FOLDERS, BUILD_FILES, the Effects) added, changed, deleted or renamed since the last
 * build, by its content, whatever its time (the last build's inputs are recorded beside its Gatsby
 * cache), its pages and app data from different builds, or made for another day's Effects (or
 * another set of them, see `EFFECTS_DIR`) than the one asked for now; and builds it then. Tests
 * (`__tests__`) do not change the build.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { installedCommand } from "../build/installed-command";
import { readBrand } from "../src/content/read-brand";
import { readTextVariable, readVariable } from "../supabase/functions/_shared/contract/variables";
import {
  effectsDir,
  publicationDay,
  PUBLICATION_RECORD,
  type PublicationRecord,
} from "../src/effects/effects";
import { releaseLock, tryLock } from "./lock-file";

/**
 * What the build reads: the site's sources, and the modules gatsby-node.ts and gatsby-config.ts
 * import from beside them. deploy-site.yml deploys on a push that changes one (`npm run config:docs`
 * writes its `paths` from these and BUILD_FILES).
 */
export const BUILD_FOLDERS = [
  "src",
  "content",
  "static",
  "build",
  "site-headers",
  "supabase/functions/_shared",
];
/**
 * The project's files at its root that the build reads (Gatsby's, Tailwind's, PostCSS's, the lock),
 * as globs: the workflow's `paths` take them as written.
 */
export const BUILD_FILES = [
  "gatsby-*.ts",
  "gatsby-*.tsx",
  "tailwind.config.js",
  "postcss.config.js",
  "package-lock.json",
];
/** A root file's name that BUILD_FILES names (a glob's `*` is any run of characters but `/`). */
export const BUILD_FILE = new RegExp(
  `^(?:${BUILD_FILES.map((glob) => glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")).join("|")})$`,
);

/** A file the build read, as it was: its size and time (to skip hashing it again) and its content's hash. */
interface InputFile {
  size: number;
  mtimeMs: number;
  sha256: string;
}
/** Every file the build reads, by its path from the root. */
export type SiteInputs = Record<string, InputFile>;

/** Every file under `target` (node_modules, dot folders and tests skipped), as paths from `root`. */
export function filesUnder(root: string, target: string, found: string[] = []): string[] {
  if (!existsSync(target)) return found;
  if (statSync(target).isFile()) {
    found.push(path.relative(root, target).split(path.sep).join("/"));
    return found;
  }
  for (const entry of readdirSync(target, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === "__tests__") continue;
    filesUnder(root, path.join(target, entry.name), found);
  }
  return found;
}

/**
 * The files the build reads now, each hashed unless `previous` has it with the same size and
 * time (as git's index does): a file restored with an older time, or changed within the same
 * second, differs from the record by its time, so it is hashed and compared.
 */
export function siteInputs(root: string, env: NodeJS.ProcessEnv, previous: SiteInputs = {}): SiteInputs {
  const files = [
    ...BUILD_FOLDERS.map((dir) => path.join(root, dir)),
    effectsDir(env, root),
    ...readdirSync(root)
      .filter((name) => BUILD_FILE.test(name))
      .map((name) => path.join(root, name)),
  ].flatMap((source) => filesUnder(root, source));
  const inputs: SiteInputs = {};
  for (const file of new Set(files).values()) {
    const { size, mtimeMs } = statSync(path.join(root, file));
    const known = previous[file];
    inputs[file] =
      known && known.size === size && known.mtimeMs === mtimeMs
        ? known
        : {
            size,
            mtimeMs,
            sha256: createHash("sha256")
              .update(readFileSync(path.join(root, file)))
              .digest("hex"),
          };
  }
  return inputs;
}

/** What differs between the last build's inputs and today's, in one line, or null. */
export function inputsChange(last: SiteInputs, now: SiteInputs): string | null {
  const deleted = Object.keys(last).filter((file) => !(file in now));
  const added = Object.keys(now).filter((file) => !(file in last));
  const changed = Object.keys(now).filter((file) => file in last && last[file].sha256 !== now[file].sha256);
  const renamed = new Map<string, string>();
  for (const from of deleted) {
    const to = added.find(
      (file) => now[file].sha256 === last[from].sha256 && ![...renamed.values()].includes(file),
    );
    if (to) renamed.set(from, to);
  }
  const lines = [
    ...[...renamed].map(([from, to]) => `${from} was renamed to ${to}`),
    ...deleted.filter((file) => !renamed.has(file)).map((file) => `${file} was deleted`),
    ...added.filter((file) => ![...renamed.values()].includes(file)).map((file) => `${file} was added`),
    ...changed.map((file) => `${file} changed`),
  ];
  if (lines.length === 0) return null;
  return `${lines[0]}${lines.length > 1 ? ` (and ${lines.length - 1} more)` : ""} since the last build`;
}

/**
 * The Gatsby cache that goes with a build folder: `.cache/` for `public/`, and for another folder
 * one beside it (`year-site-cache/` for the year benchmark's `year-site/`). Gatsby's cache
 * remembers what it last wrote (the pages' HTML and data, the compilation's name in
 * `public/page-data/app-data.json`) and rewrites only what changed, so a cache shared by two
 * folders leaves each with files from the other's build: a compilation named there that is not the
 * pages' makes every page reload itself.
 */
export function cacheFor(root: string, publicDir: string): string {
  return path.resolve(publicDir) === path.join(root, "public")
    ? path.join(root, ".cache")
    : `${path.resolve(publicDir)}-cache`;
}

/** Where a build folder's last build recorded its inputs: in its own Gatsby cache. */
const inputsRecord = (root: string, publicDir: string) =>
  path.join(cacheFor(root, publicDir), "site-inputs.json");

function lastInputs(root: string, publicDir: string): SiteInputs | null {
  const file = inputsRecord(root, publicDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as SiteInputs) : null;
}

/**
 * Gatsby's pages name the compilation they were built with, and `public/page-data/app-data.json`
 * (in whichever folder) names the one the browser should be running; when they differ, every page
 * reloads itself as soon as its scripts run. A build that rewrote the pages but kept an older app
 * data file leaves them so.
 */
function compilationMismatch(publicDir: string): string | null {
  if (!existsSync(path.join(publicDir, "index.html"))) return null;
  const pages = /___webpackCompilationHash="(\w+)"/.exec(
    readFileSync(path.join(publicDir, "index.html"), "utf8"),
  );
  if (!pages) return null;
  const appData = path.join(publicDir, "page-data", "app-data.json");
  const named = existsSync(appData)
    ? (JSON.parse(readFileSync(appData, "utf8")) as { webpackCompilationHash?: string })
        .webpackCompilationHash
    : undefined;
  return named === pages[1]
    ? null
    : `${path.basename(publicDir)}/page-data/app-data.json is not from the build that made the pages (every page would reload itself)`;
}

/** Why the last build's Effects are not the ones `env` asks for, or null when they are. */
function publicationReason(root: string, publicDir: string, env: NodeJS.ProcessEnv): string | null {
  const recordFile = path.join(cacheFor(root, publicDir), path.relative(".cache", PUBLICATION_RECORD));
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
  const mismatch = compilationMismatch(publicDir);
  if (mismatch) return mismatch;
  const last = lastInputs(root, publicDir);
  if (!last) return "no record of the files the last build read";
  const changed = inputsChange(last, siteInputs(root, env, last));
  if (changed) return changed;
  return publicationReason(root, publicDir, env);
}

/**
 * Builds the site (`gatsby build`) when `buildReason` gives one, saying why in one line, and says
 * whether it built: what `npm start`, the browser tests and the benchmarks run before they serve
 * it. Throws when the build fails (its own messages are already on the terminal).
 *
 * Gatsby always builds into `public/` with its cache in `.cache/`. A build for another folder (the
 * year benchmark's, bench/build-year.ts, with a year of Effects) moves the developer's `public/`
 * and `.cache/` aside first, puts the folder's own in their place, and puts everything back
 * afterwards, also when the build fails, so `npm start`'s site is never replaced by the benchmark's
 * and neither build starts from the other's cache. What a killed build left aside is put back at
 * the next one.
 *
 * One build at a time in a project (`holdBuildLock`): a second one, say an `npm start` while the
 * year benchmark builds, says that it waits and starts once the first has put everything back; it
 * would otherwise take the first one's moved folders for a killed build's. (The browser tests build
 * in a copy of the project, test/support/test-project.ts, with a lock of its own.)
 */
export function buildSiteIfStale(
  root = path.resolve(__dirname, ".."),
  publicDir = path.join(root, "public"),
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const release = holdBuildLock(root);
  try {
    return buildHolding(root, publicDir, env);
  } finally {
    release();
  }
}

/** The lock's file in the project's folder (git-ignored): the process id of the build that holds it. */
export const BUILD_LOCK = ".site-build.lock";
/** How long a build waits for another before it gives up, saying which process holds the lock. */
const LOCK_WAIT_MS = 30 * 60_000;

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Takes the project's build lock, waiting while a running process holds it; returns its release.
 * A lock whose process is gone (a killed build) is taken over (scripts/lock-file.ts).
 */
export function holdBuildLock(root: string, waitMs = LOCK_WAIT_MS): () => void {
  const lock = path.join(root, BUILD_LOCK);
  const started = Date.now();
  let said = false;
  for (;;) {
    const state = tryLock(lock);
    if (state.taken) return () => releaseLock(lock);
    const { holder } = state;
    const waited = Date.now() - started;
    if (waited > waitMs)
      throw new Error(
        `Another build of the site (process ${holder || "unknown"}) has held ${BUILD_LOCK} for ${Math.round(waitMs / 60_000)} minutes. If no build runs, delete that file.`,
      );
    if (!said) {
      console.log(`Waiting for another build of the site (process ${holder || "unknown"}) to finish.`);
      said = true;
    }
    sleep(200);
  }
}

/** Builds when the site is stale; whether it built. */
function buildHolding(root: string, publicDir: string, env: NodeJS.ProcessEnv): boolean {
  const defaultDir = path.join(root, "public");
  const aside = path.join(root, ".public-aside");
  const defaultCache = path.join(root, ".cache");
  const cacheAside = path.join(root, ".cache-aside");
  // A build for another folder was killed: `public/` and `.cache/` hold its half-built site.
  for (const [kept, inPlace] of [
    [aside, defaultDir],
    [cacheAside, defaultCache],
  ]) {
    if (!existsSync(kept)) continue;
    rmSync(inPlace, { recursive: true, force: true });
    renameSync(kept, inPlace);
  }
  const reason = buildReason(root, publicDir, env);
  const shown = path.relative(root, publicDir) || publicDir;
  if (!reason) {
    console.log(
      `The site is up to date: no file it is built from (src/, content/, static/, the configuration) changed since ${shown}/ was built.`,
    );
    return false;
  }
  // What the build reads, as it starts: a file changed during the build is seen by the next one.
  const inputs = siteInputs(root, env, lastInputs(root, publicDir) ?? {});
  console.log(`Building the site into ${shown}/: ${reason}.`);
  // Gatsby's cache would keep the stale app data file (it rewrites it only for a new compilation).
  if (compilationMismatch(publicDir)) rmSync(cacheFor(root, publicDir), { recursive: true, force: true });
  const elsewhere = path.resolve(publicDir) !== defaultDir;
  const ownCache = cacheFor(root, publicDir);
  if (elsewhere) {
    if (existsSync(defaultDir)) renameSync(defaultDir, aside);
    if (existsSync(defaultCache)) renameSync(defaultCache, cacheAside);
    // The folder's last build and its cache, as Gatsby's starting point.
    if (existsSync(publicDir)) renameSync(publicDir, defaultDir);
    if (existsSync(ownCache)) renameSync(ownCache, defaultCache);
  }
  try {
    const result = spawnSync(installedCommand("gatsby", root), ["build"], {
      cwd: root,
      stdio: "inherit",
      env: { ...env, GATSBY_TELEMETRY_DISABLED: readTextVariable(env, "GATSBY_TELEMETRY_DISABLED") },
    });
    if (result.status !== 0) throw new Error("The site did not build; see the messages above.");
  } finally {
    if (elsewhere) {
      rmSync(publicDir, { recursive: true, force: true });
      rmSync(ownCache, { recursive: true, force: true });
      if (existsSync(defaultDir)) renameSync(defaultDir, publicDir);
      if (existsSync(defaultCache)) renameSync(defaultCache, ownCache);
      if (existsSync(aside)) renameSync(aside, defaultDir);
      if (existsSync(cacheAside)) renameSync(cacheAside, defaultCache);
    }
  }
  mkdirSync(cacheFor(root, publicDir), { recursive: true });
  writeFileSync(inputsRecord(root, publicDir), JSON.stringify(inputs));
  return true;
}
