/**
 * `SqlExecutor` over embedded PGlite (PostgreSQL in WebAssembly): the local stack's database when
 * no `DATABASE_URL` is set, kept in a folder so data survives restarts. PGlite runs one statement
 * at a time, so concurrent transactions queue; that is its throughput limit, not a correctness one.
 */
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { SqlExecutor, SqlQueryable, SqlRow } from "../supabase/functions/_shared/hosts.ts";

/** `dataDir` undefined: in memory (tests). */
export async function createPgliteExecutor(dataDir?: string): Promise<SqlExecutor> {
  const db = await PGlite.create(dataDir);
  const on = (runner: PGlite | Transaction): SqlQueryable => ({
    async query<T extends SqlRow = SqlRow>(text: string, params: unknown[] = []): Promise<T[]> {
      const result = await runner.query<T>(text, params);
      return result.rows;
    },
    async exec(script: string): Promise<void> {
      await runner.exec(script);
    },
  });
  return {
    ...on(db),
    transaction: (work) => db.transaction((tx) => work(on(tx))),
    async close(): Promise<void> {
      await db.close();
    },
  };
}
