/**
 * Where the local stack and the `subscribers` command keep data: PostgreSQL at `DATABASE_URL`,
 * else embedded PGlite in `$DATA_DIR/pglite`. Both are migrated on open. PGlite allows one
 * process per folder (server/data-dir-lock.ts).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { createPostgresExecutor } from "../supabase/functions/_shared/drivers/postgres-executor.ts";
import type { SqlExecutor } from "../supabase/functions/_shared/sql-executor.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { migrate, type MigrationReport } from "./migrations.ts";
import { createPgliteExecutor } from "./pglite-executor.ts";

export interface StorageOptions {
  databaseUrl?: string;
  dataDir: string;
}

export interface Storage {
  db: SqlExecutor;
  /** For the start-up log, without credentials: "PostgreSQL db.example.com:5432/app", "PGlite .data/pglite". */
  description: string;
  migrations: MigrationReport;
  /** Only this process uses the database (PGlite): anything another process held, it held when it died. */
  exclusive: boolean;
  close(): Promise<void>;
}

export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `PostgreSQL ${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    throw new Error("DATABASE_URL is not a valid postgres:// URL");
  }
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    const description = describeDatabaseUrl(options.databaseUrl);
    const db = createPostgresExecutor(options.databaseUrl);
    try {
      const migrations = await migrate(db);
      return { db, description, migrations, exclusive: false, close: () => db.close() };
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  mkdirSync(options.dataDir, { recursive: true });
  const unlock = lockDataDir(options.dataDir);
  const folder = path.join(options.dataDir, "pglite");
  try {
    const db = await createPgliteExecutor(folder);
    const migrations = await migrate(db).catch(async (error: unknown) => {
      await db.close();
      throw error;
    });
    return {
      db,
      description: `PGlite ${folder}`,
      migrations,
      exclusive: true,
      async close() {
        try {
          await db.close();
        } finally {
          unlock();
        }
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
