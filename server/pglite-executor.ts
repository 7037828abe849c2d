/**
 * `SqlExecutor` over embedded PGlite (PostgreSQL in WebAssembly): the local stack's database when
 * no `DATABASE_URL` is set, kept in a folder so data survives restarts. PGlite runs one statement
 * at a time, so concurrent transactions queue; that is its throughput limit, not a correctness one.
 */
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { SqlExecutor, SqlQueryable, SqlRow } from "../supabase/functions/_shared/hosts.ts";

/**
 * PostgreSQL's shared buffers, which PGlite keeps in its WebAssembly memory and clears at every
 * open: 16 MB instead of the 128 MB of the folder's postgresql.conf. Every command on a data folder
 * opens it; an open took 0.21 s of CPU and left the process at 355 MB at 128 MB, 0.11 s and 220 MB
 * at 16 MB (32 MB: 0.13 s, 8 MB: no less), and importing 100,000 readers (`npm run bench:import`)
 * and sending an Effect to 10,000 (`npm run bench:send`) took the same time with either.
 */
const START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];

/** `dataDir` undefined: in memory (tests). */
export async function createPgliteExecutor(dataDir?: string): Promise<SqlExecutor> {
  const db = await PGlite.create(dataDir, { startParams: START_PARAMS });
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
