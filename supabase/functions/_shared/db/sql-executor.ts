/**
 * The one thing the core's SQL modules need from a database: parameterised queries (`$1`, `$2`)
 * and a transaction. PGlite and node-postgres (on Node and on Deno) each implement it in a few
 * lines, so every SQL statement lives once, in the module that owns it.
 */

export type SqlRow = Record<string, unknown>;

export interface SqlQueryable {
  query<T extends SqlRow = SqlRow>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface SqlExecutor extends SqlQueryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<R>(work: (tx: SqlQueryable) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}

/** Timestamps come back as Date from both drivers; strings are accepted for safety. */
export function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  const date = new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new Error(`Not a timestamp: ${String(value)}`);
  return date;
}
