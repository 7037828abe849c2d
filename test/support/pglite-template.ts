/**
 * A migrated, empty PGlite database for a test's data folder, copied from a template made once per
 * schema version: the local stack in-process (test-stack.ts) and as its own process (stack.ts).
 */
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { migrate, MIGRATIONS_DIR } from "../../server/migrations.ts";
import { createPgliteExecutor } from "../../server/pglite-executor.ts";
import { releaseLock, tryLock } from "../../scripts/lock-file.ts";
import { DATA_FOLDERS } from "./data-folders.ts";

const ROOT = path.resolve(__dirname, "../..");

const TEMPLATE_PREFIX = "newsletter-pglite-template-";
/** Templates of other schema versions, and builds a killed run left, are removed after a week. */
const TEMPLATE_KEPT_MS = 7 * 24 * 3600 * 1000;

/** Removes the week-old templates of other versions from DATA_FOLDERS (in memory, they hold RAM). */
function removeOldTemplates(current: string[]): void {
  for (const name of readdirSync(DATA_FOLDERS)) {
    const folder = path.join(DATA_FOLDERS, name);
    if (!name.startsWith(TEMPLATE_PREFIX) || current.includes(folder)) continue;
    try {
      if (Date.now() - statSync(folder).mtimeMs > TEMPLATE_KEPT_MS)
        rmSync(folder, { recursive: true, force: true });
    } catch {
      // Another run removed it first.
    }
  }
}

/** A digest of `name` and of the project's files named. */
function digest(name: string, files: string[]): string {
  const hash = createHash("sha256").update(name);
  for (const file of files) hash.update(file).update(readFileSync(path.join(ROOT, file)));
  return hash.digest("hex").slice(0, 16);
}

/** Once a process: what a name is made of does not change during a run. */
const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};

/** The new cluster's folder: its name holds PGlite's version and how the project opens it. */
const emptyFolder = once((): string =>
  path.join(
    DATA_FOLDERS,
    `${TEMPLATE_PREFIX}empty-${digest("", ["node_modules/@electric-sql/pglite/package.json", "server/pglite-executor.ts"])}`,
  ),
);

/**
 * The migrated template's folder: its name holds the new cluster's, the migrations and the
 * runner's modules, which decide how the folder records its migrations.
 */
const templateFolder = once((): string => {
  const migrations = readdirSync(MIGRATIONS_DIR)
    .sort()
    .map((name) => path.relative(ROOT, path.join(MIGRATIONS_DIR, name)));
  const runner = ["migrations.ts", "migration-record.ts", "old-migration-record.ts", "sql-statements.ts"].map(
    (name) => `server/${name}`,
  );
  return path.join(DATA_FOLDERS, `${TEMPLATE_PREFIX}${digest(emptyFolder(), [...migrations, ...runner])}`);
});

/** How old a lock may be before another process takes it over: a build takes seconds. */
const LOCK_KEPT_MS = 120_000;

/**
 * Makes the folder `target` with `build` unless it exists, one process at a time: the others wait
 * for it. The builder holds a lock file beside it (scripts/lock-file.ts); one whose process has
 * gone, or older than two minutes, is taken over. `build` makes the folder whole or not at all, so
 * the rare second build a takeover allows changes nothing.
 */
export async function buildOnce(target: string, build: (target: string) => Promise<void>): Promise<void> {
  const lock = `${target}.lock`;
  while (!existsSync(target)) {
    if (!tryLock(lock, { maxAgeMs: LOCK_KEPT_MS }).taken) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    try {
      if (!existsSync(target)) await build(target);
    } finally {
      releaseLock(lock);
    }
  }
}

/**
 * A new PGlite cluster, never opened by a test (each gets a copy): creating one (PostgreSQL's
 * initdb) takes about 4.5 s of CPU, copying it a few milliseconds. For the migrated template and
 * for the tests of migrating a database from nothing (server/__tests__/migrations.test.ts).
 */
async function emptyPglite(): Promise<string> {
  const folder = emptyFolder();
  await buildOnce(folder, (target) =>
    intoPlace(target, async (building) => {
      await (await createPgliteExecutor(building)).close();
    }),
  );
  return folder;
}

/**
 * A migrated, empty PGlite folder, made once per schema version and copied for each stack. The
 * version includes the runner's modules, which decide how the folder records its migrations. A
 * run's first files start together, one per Jest worker: one builds it and the others wait (each
 * used to build its own and keep the first, two builds of three wasted).
 */
async function pgliteTemplate(): Promise<string> {
  const template = templateFolder();
  await buildOnce(template, async (target) => {
    const empty = await emptyPglite();
    removeOldTemplates([target, empty]);
    await intoPlace(target, async (building) => {
      cpSync(empty, building, { recursive: true });
      const db = await createPgliteExecutor(building);
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
    });
  });
  return template;
}

/** Makes the folder `target` with `make`, in a folder beside it renamed into place when whole. */
async function intoPlace(target: string, make: (building: string) => Promise<void>): Promise<void> {
  const building = mkdtempSync(`${target}-building-`);
  try {
    await make(building);
    renameSync(building, target);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another run made it first (one whose lock this process took over): theirs is as good as ours.
    if (!existsSync(target)) throw error;
  }
}

/** Puts an empty, migrated PGlite database into the data folder `dataDir`. */
export async function copyMigratedPglite(dataDir: string): Promise<void> {
  cpSync(await pgliteTemplate(), path.join(dataDir, "pglite"), { recursive: true });
}

/** Puts a new PGlite cluster, with no migration applied, at `folder`. */
export async function copyEmptyPglite(folder: string): Promise<void> {
  cpSync(await emptyPglite(), folder, { recursive: true });
}
