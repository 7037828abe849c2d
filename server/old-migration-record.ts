/**
 * The record this runner kept before it kept the Supabase CLI's: `public.schema_migrations
 * (name, checksum, applied_at)`, the file name and the SHA-256 of its text. A local database
 * (PGlite in `.data/`, a developer's PostgreSQL) that has it is moved once to the CLI's record, in
 * the transaction that makes that record, and the old table dropped. Only a table with this
 * runner's columns is taken: other tools name their record `schema_migrations` too.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { sha256Hex, type SqlQueryable } from "../supabase/functions/_shared/hosts.ts";
import { parseMigrationFile, recordedStatements, recordMigration } from "./migration-record.ts";
import { splitStatements } from "./sql-statements.ts";

/**
 * What a file's record says when its text has changed since it was applied: the applied text is
 * not known, and this statement, unlike the file's, keeps the change reported.
 */
const unknownStatements = (checksum: string) => [
  `-- applied before the migration record kept statements, from a file whose SHA-256 was ${checksum}`,
];

export async function adoptOldMigrationRecord(tx: SqlQueryable, dir: string): Promise<void> {
  const [old] = await tx.query<{ ours: boolean }>(
    `select count(*) = 2 as ours from information_schema.columns
     where table_schema = 'public' and table_name = 'schema_migrations' and column_name in ('name', 'checksum')`,
  );
  if (!old?.ours) return;
  const rows = await tx.query<{ name: string; checksum: string }>(
    `select name, checksum from public.schema_migrations order by name`,
  );
  for (const row of rows) {
    const file = parseMigrationFile(row.name);
    // A name without a version is no migration to the CLI; a version recorded already stays.
    if (!file || (await recordedStatements(tx, file.version)) !== undefined) continue;
    const where = path.join(dir, row.name);
    const script = existsSync(where) ? readFileSync(where, "utf8") : undefined;
    const unchanged = script !== undefined && (await sha256Hex(script)) === row.checksum;
    await recordMigration(tx, file, unchanged ? splitStatements(script) : unknownStatements(row.checksum));
  }
  await tx.exec(`drop table public.schema_migrations`);
}
