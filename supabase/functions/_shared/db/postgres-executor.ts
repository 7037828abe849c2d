/**
 * `SqlExecutor` over node-postgres (`pg`), for any PostgreSQL: the local stack with
 * `DATABASE_URL` (Node) and the Supabase functions with `SUPABASE_DB_URL` (Deno, `npm:pg` via
 * deno.json). Outside the portable core because it depends on a driver, not on web standards.
 *
 * An outage must cost a visitor seconds, not minutes: a connection that cannot be made fails
 * within `connectTimeoutMs` and the next request tries afresh, so signups answer 503 quickly while
 * PostgreSQL is down and work again as soon as it is back. (The postgres package, used before, delayed
 * every connection by a back-off shared across its pool, up to 20 s, and crashed the process when
 * the server went away inside a transaction: porsager/postgres#1154, #1208, unfixed upstream.)
 */
import pg from "pg";
import type { SqlExecutor, SqlQueryable, SqlRow } from "./sql-executor.ts";

export interface PostgresOptions {
  /** Connections in the pool; a function instance needs few. */
  max?: number;
  /** How long to wait for a connection before the query fails (default 2 s). */
  connectTimeoutMs?: number;
}

// `date` as its text (YYYY-MM-DD), as PGlite gives it, rather than a Date at local midnight.
const DATE_OID = 1082;
const types = {
  getTypeParser: (oid: number, format?: string) =>
    oid === DATE_OID ? (value: string) => value : pg.types.getTypeParser(oid, format as "text"),
};

const on = (client: pg.Pool | pg.PoolClient): SqlQueryable => ({
  async query<T extends SqlRow = SqlRow>(text: string, params: unknown[] = []): Promise<T[]> {
    // Unnamed statements only: safe behind a transaction pooler (PgBouncer, Supavisor on 6543).
    return (await client.query<T>({ text, values: params, types })).rows;
  },
  async exec(script: string): Promise<void> {
    // Without parameters pg uses the simple protocol, which runs several statements.
    await client.query(script);
  },
});

export function createPostgresExecutor(url: string, options: PostgresOptions = {}): SqlExecutor {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
    idleTimeoutMillis: 60_000,
  });
  // A connection that dies (the server stopped) reports it as an error event, on the pool while
  // it is idle and on the client while it is checked out or being closed. The query in flight, if
  // any, rejects on its own; the event itself must not end the process, so every client gets a
  // listener for its whole life.
  pool.on("error", () => undefined);
  pool.on("connect", (client: pg.PoolClient) => client.on("error", () => undefined));
  return {
    ...on(pool),
    async transaction<R>(work: (tx: SqlQueryable) => Promise<R>): Promise<R> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("begin");
        const result = await work(on(client));
        await client.query("commit");
        return result;
      } catch (error) {
        // A client that cannot even roll back is discarded, not reused: its connection is gone.
        await client.query("rollback").catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}
