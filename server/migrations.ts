/**
 * Applies `supabase/migrations/*.sql` in name order, each in its own transaction, and records
 * what it applied in `schema_migrations`, so a restart applies only new files. The same files go
 * to Supabase with `supabase db push`, which keeps its own record.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { sha256Hex, type SqlExecutor } from "../supabase/functions/_shared/hosts.ts";

export const MIGRATIONS_DIR = path.resolve(__dirname, "../supabase/migrations");

/** Any fixed number: two processes migrating one database at once take turns on it. */
const MIGRATION_LOCK = 7_301_442;

export interface MigrationReport {
  applied: string[];
  /** Files that changed after they were applied: the database does not have their new content. */
  changed: string[];
}

const migrationFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();

/**
 * The migrations `db` has not had, in name order, without changing anything: for commands that
 * only read (`subscribers stats`, `export`, `effect status`), which must not alter a production
 * database's schema.
 */
export async function pendingMigrations(db: SqlExecutor, dir = MIGRATIONS_DIR): Promise<string[]> {
  const [table] = await db.query<{ present: boolean }>(
    `select to_regclass('schema_migrations') is not null as present`,
  );
  const applied = table?.present
    ? new Set((await db.query<{ name: string }>(`select name from schema_migrations`)).map((row) => row.name))
    : new Set<string>();
  return migrationFiles(dir).filter((name) => !applied.has(name));
}

export async function migrate(db: SqlExecutor, dir = MIGRATIONS_DIR): Promise<MigrationReport> {
  await db.exec(`
    create table if not exists schema_migrations (
      name text primary key,
      checksum text not null,
      applied_at timestamptz not null default now()
    );
    alter table schema_migrations enable row level security;
  `);
  const files = migrationFiles(dir);
  const report: MigrationReport = { applied: [], changed: [] };
  for (const name of files) {
    const script = readFileSync(path.join(dir, name), "utf8");
    const checksum = await sha256Hex(script);
    await db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock($1)`, [MIGRATION_LOCK]);
      const [done] = await tx.query<{ checksum: string }>(
        `select checksum from schema_migrations where name = $1`,
        [name],
      );
      if (done) {
        if (done.checksum !== checksum) report.changed.push(name);
        return;
      }
      await tx.exec(script);
      await tx.query(`insert into schema_migrations (name, checksum) values ($1, $2)`, [name, checksum]);
      report.applied.push(name);
    });
  }
  return report;
}
