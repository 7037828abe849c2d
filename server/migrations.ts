/**
 * Applies `supabase/migrations/*.sql` in name order, each in its own transaction, and records
 * each where `supabase db push` records it (server/migration-record.ts), so a restart applies only
 * new files, and a database either of them migrated is up to date for the other.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { SqlExecutor } from "../supabase/functions/_shared/hosts.ts";
import {
  appliedVersions,
  CREATE_RECORD,
  migrationFiles,
  recordedStatements,
  recordMigration,
} from "./migration-record.ts";
import { adoptOldMigrationRecord } from "./old-migration-record.ts";
import { sameScript, splitStatements } from "./sql-statements.ts";

export const MIGRATIONS_DIR = path.resolve(__dirname, "../supabase/migrations");

/** Any fixed number: two processes migrating one database at once take turns on it. */
const MIGRATION_LOCK = 7_301_442;

export interface MigrationReport {
  applied: string[];
  /** Files that changed after they were applied: the database does not have their new content. */
  changed: string[];
}

/**
 * The migrations `db` has not had, in name order, without changing anything: for commands that
 * only read (`subscribers stats`, `export`, `effect status`), which must not alter a production
 * database's schema.
 */
export async function pendingMigrations(db: SqlExecutor, dir = MIGRATIONS_DIR): Promise<string[]> {
  const applied = await appliedVersions(db);
  return migrationFiles(dir)
    .filter(({ version }) => !applied.has(version))
    .map(({ file }) => file);
}

export async function migrate(db: SqlExecutor, dir = MIGRATIONS_DIR): Promise<MigrationReport> {
  const files = migrationFiles(dir);
  await db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock($1)`, [MIGRATION_LOCK]);
    await tx.exec(CREATE_RECORD);
    await adoptOldMigrationRecord(tx, dir);
  });
  const report: MigrationReport = { applied: [], changed: [] };
  for (const file of files) {
    const script = readFileSync(path.join(dir, file.file), "utf8");
    await db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock($1)`, [MIGRATION_LOCK]);
      const recorded = await recordedStatements(tx, file.version);
      if (recorded !== undefined) {
        // A record without statements (an older CLI's) has nothing to compare.
        if (recorded && !sameScript(recorded, script)) report.changed.push(file.file);
        return;
      }
      await tx.exec(script);
      await recordMigration(tx, file, splitStatements(script));
      report.applied.push(file.file);
    });
  }
  return report;
}
