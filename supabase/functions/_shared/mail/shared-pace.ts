/**
 * A mail API's request rate, kept in the database (`mail_pace`) so that every process sending
 * through the account shares it: two `send-effect` calls that overlap, the worker booted after a
 * kill, the confirmations beside the Effect. Resend counts its limit per team, whatever process
 * asks; a pace per process would let two of them ask twice as fast and be answered 429.
 *
 * Each request takes the next free slot in one statement (the row's lock orders them), `gap` after
 * the slot before, and waits for it. The gap holds a small allowance on top of `1000 / perSecond`:
 * the API counts requests when they arrive, and a request that arrives a few milliseconds late
 * beside one that arrives on time would otherwise be the third in one second. The wait is computed
 * by the database's clock alone, so the processes' clocks need not agree.
 */
import type { SqlQueryable } from "../db/sql-executor.ts";
import type { MailPace } from "../effect-sending/delivery-decisions.ts";

/** Added to each slot: the spread of arrival times between sender and API. */
export const PACE_ALLOWANCE_MS = 15;

const TAKE_SLOT = `
  insert into mail_pace as pace (name, next_slot)
  values ($1, clock_timestamp() + make_interval(secs => $2::float8 / 1000))
  on conflict (name) do update
    set next_slot = greatest(pace.next_slot, clock_timestamp()) + make_interval(secs => $2::float8 / 1000)
  returning greatest(0, extract(epoch from (pace.next_slot - clock_timestamp())) * 1000 - $2::float8)::float8 as wait_ms`;

/** One account's pace; `perSecond` 0 is no limit (no query at all). */
export function createDatabasePace(db: SqlQueryable, name: string, perSecond: number): MailPace {
  const gapMs = perSecond > 0 ? 1000 / perSecond + PACE_ALLOWANCE_MS : 0;
  return {
    async take(): Promise<void> {
      if (gapMs === 0) return;
      const [row] = await db.query<{ wait_ms: number }>(TAKE_SLOT, [name, gapMs]);
      const wait = Number(row?.wait_ms ?? 0);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    },
  };
}

/** How a host makes the pace of a named API account (the database's, shared by every process). */
export type PaceFactory = (name: string, perSecond: number) => MailPace;
