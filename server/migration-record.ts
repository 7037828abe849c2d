/**
 * The record of applied migrations, kept where and as the Supabase CLI keeps it:
 * `supabase_migrations.schema_migrations (version, name, statements)`, one row per file, the
 * version being the file name's leading digits (apps/cli-go/pkg/migration/history.go and file.go
 * in supabase/cli). `supabase db push` and the local runner then see each other's work.
 */
import { readdirSync } from "node:fs";
import type { SqlQueryable } from "../supabase/functions/_shared/hosts.ts";

/** A migration file by the CLI's pattern, `<version>_<name>.sql`. */
export interface MigrationFile {
  file: string;
  version: string;
  name: string;
}

const MIGRATION_FILE = /^([0-9]+)_(.*)\.sql$/;

export function parseMigrationFile(file: string): MigrationFile | undefined {
  const match = MIGRATION_FILE.exec(file);
  return match ? { file, version: match[1], name: match[2] } : undefined;
}

/** The migrations in `dir`, in name order; the CLI skips any other file, and so does the runner. */
export const migrationFiles = (dir: string): MigrationFile[] =>
  readdirSync(dir)
    .sort()
    .flatMap((file) => parseMigrationFile(file) ?? []);

/** The CLI's own statements: the table made, or completed as an older CLI left it. */
export const CREATE_RECORD = `
  create schema if not exists supabase_migrations;
  create table if not exists supabase_migrations.schema_migrations (version text not null primary key);
  alter table supabase_migrations.schema_migrations add column if not exists statements text[];
  alter table supabase_migrations.schema_migrations add column if not exists name text;
`;

/** Records `file` as applied; fails if its version is recorded already, as the CLI's insert does. */
export async function recordMigration(
  tx: SqlQueryable,
  file: MigrationFile,
  statements: string[],
): Promise<void> {
  await tx.query(
    `insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)`,
    [file.version, file.name, statements],
  );
}

/** The statements recorded for `version`: undefined if it is not applied, null if the record has none. */
export async function recordedStatements(
  tx: SqlQueryable,
  version: string,
): Promise<string[] | null | undefined> {
  const [row] = await tx.query<{ statements: string[] | null }>(
    `select statements from supabase_migrations.schema_migrations where version = $1`,
    [version],
  );
  return row ? row.statements : undefined;
}

/** The versions applied, read without changing anything: none when there is no record yet. */
export async function appliedVersions(db: SqlQueryable): Promise<Set<string>> {
  const [record] = await db.query<{ present: boolean }>(
    `select to_regclass('supabase_migrations.schema_migrations') is not null as present`,
  );
  if (!record?.present) return new Set();
  const rows = await db.query<{ version: string }>(
    `select version from supabase_migrations.schema_migrations`,
  );
  return new Set(rows.map((row) => row.version));
}
