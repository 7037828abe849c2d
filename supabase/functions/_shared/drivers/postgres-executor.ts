/**
 * `SqlExecutor` over postgres.js, for any PostgreSQL: the local stack with `DATABASE_URL` (Node)
 * and the Supabase functions with `SUPABASE_DB_URL` (Deno, `npm:postgres` via deno.json).
 * Outside the portable core because it depends on a driver, not on web standards.
 */
import postgres from "postgres";
import type { SqlExecutor, SqlQueryable, SqlRow } from "../sql-executor.ts";

type Params = postgres.ParameterOrJSON<never>[];

export interface PostgresOptions {
  /** Connections in the pool; a function instance needs few. */
  max?: number;
  /** Prepared statements; off for a transaction pooler (PgBouncer, Supavisor on 6543). */
  prepare?: boolean;
}

export function createPostgresExecutor(url: string, options: PostgresOptions = {}): SqlExecutor {
  const sql = postgres(url, {
    max: options.max ?? 10,
    prepare: options.prepare ?? true,
    connect_timeout: 10,
    idle_timeout: 60,
    // `create ... if not exists` reports "already exists, skipping" as a notice on every start:
    // expected, so not printed. Errors still throw.
    onnotice: () => undefined,
  });
  const on = (runner: postgres.Sql | postgres.TransactionSql): SqlQueryable => ({
    async query<T extends SqlRow = SqlRow>(text: string, params: unknown[] = []): Promise<T[]> {
      const rows = await runner.unsafe(text, params as Params);
      return rows as unknown as T[];
    },
    async exec(script: string): Promise<void> {
      // Without parameters postgres.js uses the simple protocol, which runs several statements.
      await runner.unsafe(script);
    },
  });
  return {
    ...on(sql),
    async transaction<R>(work: (tx: SqlQueryable) => Promise<R>): Promise<R> {
      // postgres.js types `begin` as returning UnwrapPromiseArray<R>; for a plain value it is R.
      return (await sql.begin((tx) => work(on(tx)))) as R;
    },
    async close(): Promise<void> {
      await sql.end({ timeout: 5 });
    },
  };
}
