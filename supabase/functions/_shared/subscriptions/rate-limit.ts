/**
 * Limits per client address, counted in one table that every function instance shares: requests
 * per minute to each function, and the confirmation mails a client's signups cause per UTC day.
 * Buckets hold a hash of what is counted (`clientKey`: an IPv6 client by its /64), so the table
 * never keeps addresses.
 */
import { rateLimitSubject } from "../http/client-address.ts";
import type { SqlExecutor, SqlQueryable } from "../db/sql-executor.ts";
import { utcDay } from "../contract/calendar-day.ts";
import { sha256Hex } from "./tokens.ts";

const WINDOW_MS = 60_000;
/** Windows older than this are read by no one and are deleted by `purge` (a day's count, whole). */
const KEEP_MS = 2 * 86_400_000;

/** What the limits count for a client address, hashed. */
export const clientKey = async (clientAddress: string): Promise<string> =>
  (await sha256Hex(rateLimitSubject(clientAddress))).slice(0, 32);

/**
 * Counts one confirmation mail caused by the client `key` today, inside the caller's transaction
 * (the signup's), and returns today's count so far.
 */
export async function countClientMail(tx: SqlQueryable, key: string, now: Date): Promise<number> {
  const [row] = await tx.query<{ hits: number }>(
    `insert into rate_limits (bucket, window_start, hits) values ($1, $2::timestamptz, 1)
     on conflict (bucket, window_start) do update set hits = rate_limits.hits + 1
     returning hits`,
    [`mails-per-day:${key}`, `${utcDay(now)}T00:00:00.000Z`],
  );
  return Number(row.hits);
}

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
      const bucket = `${scope}:${await clientKey(clientAddress)}`;
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
