/**
 * Every statement the functions run, in portable SQL over `SqlExecutor`: the same on PGlite,
 * any PostgreSQL and Supabase. Decisions come from `subscription-lifecycle.ts`; this module only
 * reads the row under a lock, asks, and writes the answer with its mail job in one transaction.
 */
import { type SqlExecutor, type SqlQueryable, toDate } from "./sql-executor.ts";
import {
  decideConfirm,
  decideSignup,
  decideUnsubscribe,
  mailsToday,
  type MailLimits,
  type SignupDecision,
  type SubscriberStatus,
  utcDay,
} from "./subscription-lifecycle.ts";
import { newToken, sha256Hex } from "./tokens.ts";

export interface SignupInput {
  email: string;
  consentSource: string | null;
  now: Date;
  limits: MailLimits;
  confirmTokenTtlHours: number;
}

export interface SignupResult {
  decision: SignupDecision;
  /** Set when a confirmation mail job was written with the signup. */
  mailJobId: string | null;
}

export type ConfirmResult = "confirmed" | "already_confirmed" | "expired" | "unknown";
export type UnsubscribeResult = "unsubscribed" | "already_unsubscribed" | "unknown";

/** What a mail job carries until it is sent: the raw tokens for the mail's links. */
export interface ConfirmationPayload {
  confirmToken: string;
  unsubscribeToken: string;
  expiresAt: string;
}

export interface MailJob {
  id: string;
  recipient: string;
  attempts: number;
  payload: ConfirmationPayload | null;
}

export interface ExportRow {
  email: string;
  status: SubscriberStatus;
  signed_up_at: Date | null;
  confirmed_at: Date | null;
  unsubscribed_at: Date | null;
  consent_source: string | null;
  consent_at: Date | null;
}

const STATUSES: readonly SubscriberStatus[] = ["pending", "confirmed", "unsubscribed"];

interface NewTokens {
  confirmToken: string;
  unsubscribeToken: string;
  confirmHash: string;
  unsubscribeHash: string;
  expiresAt: Date;
}

async function mintTokens(now: Date, ttlHours: number): Promise<NewTokens> {
  const confirmToken = newToken();
  const unsubscribeToken = newToken();
  return {
    confirmToken,
    unsubscribeToken,
    confirmHash: await sha256Hex(confirmToken),
    unsubscribeHash: await sha256Hex(unsubscribeToken),
    expiresAt: new Date(now.getTime() + ttlHours * 3_600_000),
  };
}

async function insertMailJob(
  tx: SqlQueryable,
  subscriberId: string,
  recipient: string,
  tokens: NewTokens,
  now: Date,
): Promise<string> {
  const payload: ConfirmationPayload = {
    confirmToken: tokens.confirmToken,
    unsubscribeToken: tokens.unsubscribeToken,
    expiresAt: tokens.expiresAt.toISOString(),
  };
  const [job] = await tx.query<{ id: string }>(
    `insert into mail_jobs (subscriber_id, kind, recipient, payload, next_attempt_at, created_at)
     values ($1, 'confirmation', $2, $3::jsonb, $4::timestamptz, $4::timestamptz)
     returning id`,
    [subscriberId, recipient, JSON.stringify(payload), now.toISOString()],
  );
  return job.id;
}

/** jsonb arrives parsed from both drivers; a string (e.g. a json column) is parsed here. */
function readPayload(value: unknown): ConfirmationPayload | null {
  if (value === null || value === undefined) return null;
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  const record = parsed as Partial<ConfirmationPayload>;
  if (typeof record.confirmToken !== "string" || typeof record.unsubscribeToken !== "string") return null;
  return {
    confirmToken: record.confirmToken,
    unsubscribeToken: record.unsubscribeToken,
    expiresAt: String(record.expiresAt),
  };
}

export function createSubscriberStore(db: SqlExecutor) {
  return {
    /**
     * Counts one request in the client's current window and returns the count so far.
     * One statement, so concurrent requests from many instances count correctly.
     */
    async hit(bucket: string, windowStart: Date): Promise<number> {
      const [row] = await db.query<{ hits: number }>(
        `insert into rate_limits (bucket, window_start, hits) values ($1, $2::timestamptz, 1)
         on conflict (bucket, window_start) do update set hits = rate_limits.hits + 1
         returning hits`,
        [bucket, windowStart.toISOString()],
      );
      return Number(row.hits);
    },

    /**
     * A signup: creates or updates the address's row and, when a mail is due, its mail job, in
     * one transaction. Concurrent signups of one address serialise on the row (the insert waits
     * for the other's commit, then `for update` reads its result), so they make one row and one mail.
     */
    async signup(input: SignupInput): Promise<SignupResult> {
      const { email, now, consentSource } = input;
      const nowIso = now.toISOString();
      return db.transaction(async (tx) => {
        const tokens = await mintTokens(now, input.confirmTokenTtlHours);
        const inserted = await tx.query<{ id: string; email: string }>(
          `insert into subscribers (email, status, confirm_token_hash, confirm_expires_at, unsubscribe_token_hash,
             signed_up_at, mail_queued_at, mail_day, mails_on_day, consent_source, consent_at, updated_at)
           values ($1, 'pending', $2, $3::timestamptz, $4, $5::timestamptz, $5::timestamptz, $6::date, 1, $7, $5::timestamptz, $5::timestamptz)
           on conflict ((lower(email))) do nothing
           returning id, email`,
          [
            email,
            tokens.confirmHash,
            tokens.expiresAt.toISOString(),
            tokens.unsubscribeHash,
            nowIso,
            utcDay(now),
            consentSource,
          ],
        );
        if (inserted.length === 1) {
          const mailJobId = await insertMailJob(tx, inserted[0].id, inserted[0].email, tokens, now);
          return { decision: decideSignup(null, now, input.limits), mailJobId };
        }

        const [row] = await tx.query<{
          id: string;
          email: string;
          status: SubscriberStatus;
          mail_queued_at: unknown;
          mail_day: string | null;
          mails_on_day: number;
        }>(
          `select id, email, status, mail_queued_at, mail_day::text as mail_day, mails_on_day
           from subscribers where lower(email) = lower($1) for update`,
          [email],
        );
        if (!row) throw new Error("The subscriber row vanished between insert and select");
        const state = {
          status: row.status,
          mailQueuedAt: toDate(row.mail_queued_at),
          mailDay: row.mail_day,
          mailsOnDay: Number(row.mails_on_day),
        };
        const decision = decideSignup(state, now, input.limits);
        if (decision.sendMail) {
          // A fresh pair of tokens for the new mail: only hashes are stored, so the previous
          // mail's links stop working and the newest mail is the one that counts.
          const resubscribe = row.status === "unsubscribed";
          await tx.query(
            `update subscribers set status = 'pending', confirm_token_hash = $2, confirm_expires_at = $3::timestamptz,
               unsubscribe_token_hash = $4, mail_queued_at = $5::timestamptz, mail_day = $6::date, mails_on_day = $7,
               signed_up_at = case when $8 then $5::timestamptz else signed_up_at end,
               consent_source = case when $8 then $9 else consent_source end,
               consent_at = case when $8 then $5::timestamptz else consent_at end,
               updated_at = $5::timestamptz
             where id = $1`,
            [
              row.id,
              tokens.confirmHash,
              tokens.expiresAt.toISOString(),
              tokens.unsubscribeHash,
              nowIso,
              utcDay(now),
              mailsToday(state, now) + 1,
              resubscribe,
              consentSource,
            ],
          );
          // Older mails still queued (an SMTP outage) carry links that no longer work: only the
          // newest goes out.
          await tx.query(
            `update mail_jobs set status = 'abandoned', payload = null, locked_until = null,
               last_error = 'Superseded by a newer confirmation mail'
             where subscriber_id = $1 and status = 'queued'`,
            [row.id],
          );
          const mailJobId = await insertMailJob(tx, row.id, row.email, tokens, now);
          return { decision, mailJobId };
        }
        if (row.status === "unsubscribed") {
          // Back to pending without a mail (cooldown or daily cap): consent is recorded now,
          // and a later signup sends the link.
          await tx.query(
            `update subscribers set status = 'pending', signed_up_at = $2::timestamptz, consent_source = $3,
               consent_at = $2::timestamptz, updated_at = $2::timestamptz where id = $1`,
            [row.id, nowIso, consentSource],
          );
        }
        return { decision, mailJobId: null };
      });
    },

    async confirm(tokenHash: string, now: Date): Promise<ConfirmResult> {
      return db.transaction(async (tx) => {
        const [row] = await tx.query<{ id: string; status: SubscriberStatus; confirm_expires_at: unknown }>(
          `select id, status, confirm_expires_at from subscribers where confirm_token_hash = $1 for update`,
          [tokenHash],
        );
        if (!row) return "unknown";
        const decision = decideConfirm(
          { status: row.status, confirmExpiresAt: toDate(row.confirm_expires_at) },
          now,
        );
        if (decision === "confirm") {
          await tx.query(
            `update subscribers set status = 'confirmed', confirmed_at = $2::timestamptz, updated_at = $2::timestamptz where id = $1`,
            [row.id, now.toISOString()],
          );
          return "confirmed";
        }
        return decision;
      });
    },

    async unsubscribe(tokenHash: string, now: Date): Promise<UnsubscribeResult> {
      return db.transaction(async (tx) => {
        const [row] = await tx.query<{ id: string; status: SubscriberStatus }>(
          // An Effect mail carries its own token (effect_unsubscribe_tokens), the confirmation mail the subscriber's.
          `select id, status from subscribers
           where unsubscribe_token_hash = $1
              or id = (select subscriber_id from effect_unsubscribe_tokens where token_hash = $1)
           for update`,
          [tokenHash],
        );
        if (!row) return "unknown";
        if (decideUnsubscribe(row.status) === "already_unsubscribed") return "already_unsubscribed";
        await tx.query(
          `update subscribers set status = 'unsubscribed', unsubscribed_at = $2::timestamptz, updated_at = $2::timestamptz where id = $1`,
          [row.id, now.toISOString()],
        );
        return "unsubscribed";
      });
    },

    /**
     * Takes up to `limit` due jobs for this sender until `lockedUntil`; `skip locked` lets several
     * senders (function instances) share the queue without sending a mail twice.
     */
    async claimDueJobs(now: Date, lockedUntil: Date, limit: number): Promise<MailJob[]> {
      const rows = await db.query<{ id: string; recipient: string; attempts: number; payload: unknown }>(
        `update mail_jobs set attempts = attempts + 1, locked_until = $2::timestamptz
         where id in (
           select id from mail_jobs
           where status = 'queued' and next_attempt_at <= $1::timestamptz
             and (locked_until is null or locked_until <= $1::timestamptz)
           order by next_attempt_at
           limit $3
           for update skip locked)
         returning id, recipient, attempts, payload`,
        [now.toISOString(), lockedUntil.toISOString(), limit],
      );
      return rows.map((row) => ({
        id: row.id,
        recipient: row.recipient,
        attempts: Number(row.attempts),
        payload: readPayload(row.payload),
      }));
    },

    /**
     * Sent: the raw tokens are dropped, so only hashes remain anywhere. The subscriber's row is
     * locked before the job's, in the order a signup takes them, so a resend that supersedes this
     * job while it is being sent waits instead of deadlocking. A superseded job is still marked
     * sent: the mail did go out.
     */
    async markSent(jobId: string, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        const [subscriber] = await tx.query<{ id: string }>(
          `select id from subscribers where id = (select subscriber_id from mail_jobs where id = $1) for update`,
          [jobId],
        );
        await tx.query(
          `update mail_jobs set status = 'sent', sent_at = $2::timestamptz, payload = null, locked_until = null, last_error = null
           where id = $1`,
          [jobId, now.toISOString()],
        );
        if (subscriber) {
          await tx.query(`update subscribers set mail_sent_at = $2::timestamptz where id = $1`, [
            subscriber.id,
            now.toISOString(),
          ]);
        }
      });
    },

    async markFailed(jobId: string, error: string, nextAttemptAt: Date): Promise<void> {
      await db.query(
        // Only a queued job is retried; one superseded meanwhile stays abandoned.
        `update mail_jobs set next_attempt_at = $2::timestamptz, locked_until = null, last_error = $3
         where id = $1 and status = 'queued'`,
        [jobId, nextAttemptAt.toISOString(), error.slice(0, 1000)],
      );
    },

    /** A job whose link has expired is pointless to send; it is kept, marked, for the operator. */
    async markAbandoned(jobId: string, error: string): Promise<void> {
      await db.query(
        `update mail_jobs set status = 'abandoned', payload = null, locked_until = null, last_error = $2 where id = $1`,
        [jobId, error.slice(0, 1000)],
      );
    },

    /** When the next queued job is due, so a sender can sleep until then. */
    async nextDueAt(): Promise<Date | null> {
      const [row] = await db.query<{ due: unknown }>(
        `select min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) as due
         from mail_jobs where status = 'queued'`,
      );
      return toDate(row?.due);
    },

    /** Deletes pending addresses that never confirmed and rate-limit windows nobody reads any more. */
    async purge(now: Date, pendingAfterDays: number): Promise<{ subscribers: number }> {
      const cutoff = new Date(now.getTime() - pendingAfterDays * 86_400_000).toISOString();
      const deleted = await db.query(
        `delete from subscribers where status = 'pending' and coalesce(mail_queued_at, signed_up_at) < $1::timestamptz returning id`,
        [cutoff],
      );
      await db.query(`delete from rate_limits where window_start < $1::timestamptz`, [
        new Date(now.getTime() - 3_600_000).toISOString(),
      ]);
      return { subscribers: deleted.length };
    },

    async countByStatus(): Promise<Record<SubscriberStatus, number>> {
      const rows = await db.query<{ status: SubscriberStatus; count: number }>(
        `select status, count(*)::int as count from subscribers group by status`,
      );
      const counts = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<
        SubscriberStatus,
        number
      >;
      for (const row of rows) counts[row.status] = Number(row.count);
      return counts;
    },

    async list(status?: SubscriberStatus): Promise<ExportRow[]> {
      const rows = await db.query<Record<keyof ExportRow, unknown>>(
        `select email, status, signed_up_at, confirmed_at, unsubscribed_at, consent_source, consent_at
         from subscribers where ($1::text is null or status = $1::text) order by signed_up_at, email`,
        [status ?? null],
      );
      return rows.map((row) => ({
        email: String(row.email),
        status: row.status as SubscriberStatus,
        signed_up_at: toDate(row.signed_up_at),
        confirmed_at: toDate(row.confirmed_at),
        unsubscribed_at: toDate(row.unsubscribed_at),
        consent_source: row.consent_source === null ? null : String(row.consent_source),
        consent_at: toDate(row.consent_at),
      }));
    },
  };
}

export type SubscriberStore = ReturnType<typeof createSubscriberStore>;
export const SUBSCRIBER_STATUSES = STATUSES;
