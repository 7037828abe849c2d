/**
 * A migrated, empty PGlite database for a test's data folder, copied from a template made once per
 * schema version: the local stack in-process (test-stack.ts) and as its own process (stack.ts).
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrate, MIGRATIONS_DIR } from "../../server/migrations.ts";
import { createPgliteExecutor } from "../../server/pglite-executor.ts";

const ROOT = path.resolve(__dirname, "../..");

/**
 * A migrated, empty PGlite folder, made once per schema version and copied for each stack:
 * creating a PGlite database takes seconds, copying one a few milliseconds. The version includes
 * the runner's modules, which decide how the folder records its migrations.
 */
async function pgliteTemplate(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of readdirSync(MIGRATIONS_DIR).sort())
    hash.update(name).update(readFileSync(path.join(MIGRATIONS_DIR, name)));
  for (const runner of ["migrations.ts", "migration-record.ts", "sql-statements.ts"])
    hash.update(readFileSync(path.join(ROOT, "server", runner)));
  const template = path.join(tmpdir(), `newsletter-pglite-template-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(template)) return template;
  const building = mkdtempSync(`${template}-building-`);
  const db = await createPgliteExecutor(building);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  try {
    renameSync(building, template);
  } catch (error) {
    // Another test file made it first: theirs is as good as ours.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(template)) throw error;
  }
  return template;
}

/** Puts an empty, migrated PGlite database into the data folder `dataDir`. */
export async function copyMigratedPglite(dataDir: string): Promise<void> {
  cpSync(await pgliteTemplate(), path.join(dataDir, "pglite"), { recursive: true });
}
