/**
 * Where the local stack and the `subscribers` command keep data: PostgreSQL at `DATABASE_URL`,
 * else embedded PGlite in `$DATA_DIR/pglite`. Both are migrated on open. PGlite allows one
 * process per folder (server/data-dir-lock.ts).
 */
import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { createPostgresExecutor, type SqlExecutor } from "../supabase/functions/_shared/hosts.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { migrate, type MigrationReport, pendingMigrations } from "./migrations.ts";

export interface StorageOptions {
  databaseUrl?: string;
  dataDir: string;
  /**
   * For commands that only read: a database at `databaseUrl` is not migrated, and one that lacks a
   * migration is refused. (A PGlite folder is this machine's own and is migrated as the stack would.)
   */
  readOnly?: boolean;
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

/**
 * The data folder holds addresses and live confirmation links (PGlite's files, the outbox), so it
 * is its owner's alone. The folder itself is 0700, which keeps every other account out of all it
 * holds; from here on what this process creates gets no group or other access (umask 077), and
 * what is there already is tightened to folders 0700 and files 0600. PGlite sets its own files'
 * modes (0666, its WebAssembly file system ignores the umask), so its folder is tightened again
 * when it closes. Every host that opens the data folder comes through openStorage: the local stack
 * and the `effect` and `subscribers` commands.
 */
function keepDataPrivate(dataDir: string): void {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tightenModes(dataDir);
}

/** `dir` and everything under it: folders 0700, files 0600 (symbolic links left as they are). */
function tightenModes(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) continue;
    try {
      chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
    } catch (error) {
      // Gone meanwhile (a stack that holds the folder removed it): nothing left to tighten.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `PostgreSQL ${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    throw new Error("DATABASE_URL is not a valid postgres:// URL");
  }
}

/** Supabase's hosts: the database's own (db.REF.supabase.co) and its pooler's (….pooler.supabase.com). */
const onSupabase = (url: string) => /\.supabase\.(co|com)$/.test(new URL(url).hostname);

/** Which files a read-only command found missing, and what applies them to that database. */
export function pendingMigrationsMessage(url: string, pending: string[]): string {
  const apply = onSupabase(url)
    ? "apply them with `npx supabase db push` (the project linked, or `--db-url` with this DATABASE_URL)"
    : "start the local stack on it once (`npm start` with this DATABASE_URL), which applies them";
  return (
    `${describeDatabaseUrl(url)} lacks the migrations ${pending.join(", ")}. ` +
    `This command only reads and changes no schema: ${apply}, then run it again.`
  );
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  keepDataPrivate(options.dataDir);
  if (options.databaseUrl) {
    const description = describeDatabaseUrl(options.databaseUrl);
    const db = createPostgresExecutor(options.databaseUrl);
    try {
      if (options.readOnly) {
        const pending = await pendingMigrations(db);
        if (pending.length > 0) throw new Error(pendingMigrationsMessage(options.databaseUrl, pending));
        return {
          db,
          description,
          migrations: { applied: [], changed: [] },
          exclusive: false,
          close: () => db.close(),
        };
      }
      const migrations = await migrate(db);
      return { db, description, migrations, exclusive: false, close: () => db.close() };
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  const unlock = lockDataDir(options.dataDir);
  const folder = path.join(options.dataDir, "pglite");
  try {
    // Loaded here, not at the top: a command or stack on PostgreSQL never loads PGlite's engine
    // (half a megabyte of JavaScript, and its WebAssembly).
    const { createPgliteExecutor } = await import("./pglite-executor.ts");
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
          tightenModes(folder);
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
