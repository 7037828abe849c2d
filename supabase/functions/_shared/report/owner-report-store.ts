/**
 * The one writer of `owner_reports` (migration 20261128500000): which weeks' reports went to the
 * owner. A sender claims a week in one statement, an insert whose conflict takes over the row only
 * when it may be taken (skipped, or claimed long ago and not sent), and returning the row only to
 * the one caller that took it: two calls at once, on any number of processes, cannot both send.
 *
 * A claim whose process dies before the mail is sent is taken again once `leaseMs` has passed,
 * `maxAttempts` times in all: the owner gets the week's report late rather than never. A death
 * after the transport accepted the mail and before `markSent` is the one case in which a second
 * copy can go out (over SMTP and SES; over Resend the retry repeats the first request's
 * idempotency key, and Resend sends it once).
 */
import type { SqlQueryable } from "../db/sql-executor.ts";

/**
 * How long a claim holds its week before another sender may take it: longer than a Supabase
 * worker can live (150 s, 400 s on paid plans), and than a send takes anywhere (seconds).
 */
export const OWNER_REPORT_LEASE_MS = 10 * 60_000;
/**
 * Claims of one week in all; then it is given up, and the log says so. Ten: on Supabase the
 * platform may stop a worker mid-drawing (2 s of CPU, its other calls included), which costs an
 * attempt as a refused mail does.
 */
export const OWNER_REPORT_MAX_ATTEMPTS = 10;

const CLAIM = `
  insert into owner_reports as report (week_start, state, claimed_at, claimed_by, attempts)
  values ($1::date, 'claimed', $2, $3, 1)
  on conflict (week_start) do update
    set state = 'claimed', claimed_at = excluded.claimed_at, claimed_by = excluded.claimed_by,
      attempts = report.attempts + 1, note = null
    where report.state = 'skipped'
      or (report.state = 'claimed' and report.claimed_at <= $4 and report.attempts < $5)
  returning attempts`;

const SKIP = `
  insert into owner_reports (week_start, state, claimed_at, note)
  values ($1::date, 'skipped', $2, $3)
  on conflict (week_start) do nothing
  returning week_start`;

const MARK_SENT = `
  update owner_reports set state = 'sent', sent_at = $3, note = $4
  where week_start = $1::date and claimed_by = $2 and state = 'claimed'`;

const MARK_FAILED = `
  update owner_reports set note = $3
  where week_start = $1::date and claimed_by = $2 and state = 'claimed'`;

const STATE = `
  select state, attempts from owner_reports where week_start = $1::date`;

export interface OwnerReportRow {
  state: "skipped" | "claimed" | "sent";
  attempts: number;
}

export function createOwnerReportStore(db: SqlQueryable) {
  return {
    /**
     * Claims the week starting `week` for `claimant` at `at`; the attempt's number, or null when
     * the week is sent, held by a live claim, or given up.
     */
    async claim(week: string, claimant: string, at: Date): Promise<number | null> {
      const expired = new Date(at.getTime() - OWNER_REPORT_LEASE_MS);
      const rows = await db.query<{ attempts: number }>(CLAIM, [
        week,
        at,
        claimant,
        expired,
        OWNER_REPORT_MAX_ATTEMPTS,
      ]);
      return rows.length > 0 ? Number(rows[0].attempts) : null;
    },

    /** Records that the week came without a recipient; true for the one call that recorded it. */
    async skip(week: string, at: Date, why: string): Promise<boolean> {
      const rows = await db.query(SKIP, [week, at, why.slice(0, 500)]);
      return rows.length > 0;
    },

    /** The claimant's mail was accepted. */
    async markSent(week: string, claimant: string, at: Date, note: string | null = null): Promise<void> {
      await db.query(MARK_SENT, [week, claimant, at, note]);
    },

    /** The claimant's mail was refused: the claim stays, to be taken again after the lease. */
    async markFailed(week: string, claimant: string, why: string): Promise<void> {
      await db.query(MARK_FAILED, [week, claimant, why.slice(0, 500)]);
    },

    async state(week: string): Promise<OwnerReportRow | null> {
      const [row] = await db.query<{ state: OwnerReportRow["state"]; attempts: number }>(STATE, [week]);
      return row ? { state: row.state, attempts: Number(row.attempts) } : null;
    },
  };
}

export type OwnerReportStore = ReturnType<typeof createOwnerReportStore>;
