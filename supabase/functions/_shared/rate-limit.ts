/**
 * The rate limit on signups: requests per client address per minute, counted in one table that
 * every function instance shares. The bucket holds a hash, so the table never keeps addresses.
 */
import type { SqlExecutor } from "./sql-executor.ts";
import { sha256Hex } from "./tokens.ts";

const WINDOW_MS = 60_000;
/** Windows older than this are read by no one and are deleted by `purge`. */
const KEEP_MS = 3_600_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function createRateLimit(db: SqlExecutor) {
  return {
    /**
     * Counts one request of `clientAddress` under `scope` (the function's name) in the current
     * minute, and says whether it is within `perMinute`. One statement, so concurrent requests on
     * many instances count correctly.
     */
    async hit(scope: string, clientAddress: string, perMinute: number, now: Date): Promise<RateDecision> {
      const at = now.getTime();
      const windowStart = new Date(at - (at % WINDOW_MS));
      const bucket = `${scope}:${(await sha256Hex(clientAddress)).slice(0, 32)}`;
      const [row] = await db.query<{ hits: number }>(
        `insert into rate_limits (bucket, window_start, hits) values ($1, $2::timestamptz, 1)
         on conflict (bucket, window_start) do update set hits = rate_limits.hits + 1
         returning hits`,
        [bucket, windowStart.toISOString()],
      );
      if (Number(row.hits) <= perMinute) return { allowed: true };
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - at) / 1000)),
      };
    },

    async purge(now: Date): Promise<void> {
      await db.query(`delete from rate_limits where window_start < $1::timestamptz`, [
        new Date(now.getTime() - KEEP_MS).toISOString(),
      ]);
    },
  };
}

export type RateLimit = ReturnType<typeof createRateLimit>;
