/**
 * Every statement the functions run, in portable SQL over `SqlExecutor`: the same on PGlite,
 * any PostgreSQL and Supabase. Decisions come from `subscription-lifecycle.ts`; this module only
 * reads the row under a lock, asks, and writes the answer with its mail job in one transaction.
 */
import { type SqlExecutor, type SqlQueryable, toDate } from "./sql-executor.ts";
import { mailboxKey } from "./email-address.ts";
import {
  decideConfirm,
  decideSignup,
  decideUnsubscribe,
  mailHeldBack,
  type MailHistory,
  mailsToday,
  type MailLimits,
  type SignupDecision,
  type SignupState,
  type SubscriberStatus,
  utcDay,
} from "./subscription-lifecycle.ts";
import { newToken, sha256Hex } from "./tokens.ts";

export interface SignupLimits extends MailLimits {
  confirmationMailsPerClientPerDay: number;
}

export interface SignupInput {
  email: string;
  consentSource: string | null;
  now: Date;
  limits: SignupLimits;
  confirmTokenTtlHours: number;
  /** A hash of the client's address (see client-address.ts), for its daily cap; null: no cap. */
  clientKey?: string | null;
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
  /** The consent that was confirmed by a click on the mail's link. */
  consent_source: string | null;
  consent_at: Date | null;
  /** The latest signup's consent, while it waits for its confirmation. */
  pending_consent_source: string | null;
  pending_consent_at: Date | null;
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
     * one transaction. Every signup of one mailbox first locks that mailbox's row, so concurrent
     * signups of one address (or of `ann+1@` and `ann+2@`) take turns: one row, and no more mail
     * than the mailbox's cooldown and daily cap allow. Locks are taken mailbox → subscriber → job,
     * the order `markSent` follows from the subscriber on.
     */
    async signup(input: SignupInput): Promise<SignupResult> {
      const { email, now, consentSource, limits } = input;
      const nowIso = now.toISOString();
      const mailboxHash = await sha256Hex(mailboxKey(email));
      return db.transaction(async (tx) => {
        await tx.query(
          `insert into mailbox_mail_limits (mailbox_hash, last_mail_at, mail_day, mails_on_day)
           values ($1, 'epoch', $2::date, 0) on conflict (mailbox_hash) do nothing`,
          [mailboxHash, utcDay(now)],
        );
        const [mailboxRow] = await tx.query<{
          last_mail_at: unknown;
          mail_day: string;
          mails_on_day: number;
        }>(
          `select last_mail_at, mail_day::text as mail_day, mails_on_day
           from mailbox_mail_limits where mailbox_hash = $1 for update`,
          [mailboxHash],
        );
        const mailbox: MailHistory = {
          mailQueuedAt: toDate(mailboxRow.last_mail_at),
          mailDay: mailboxRow.mail_day,
          mailsOnDay: Number(mailboxRow.mails_on_day),
        };

        const inserted = await tx.query<{ id: string; email: string }>(
          `insert into subscribers (email, status, signed_up_at, pending_consent_source, pending_consent_at, updated_at)
           values ($1, 'pending', $2::timestamptz, $3, $2::timestamptz, $2::timestamptz)
           on conflict ((lower(email))) do nothing
           returning id, email`,
          [email, nowIso, consentSource],
        );
        let row: { id: string; email: string };
        let state: SignupState | null = null;
        if (inserted.length === 1) {
          row = inserted[0];
        } else {
          const [existing] = await tx.query<{
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
          if (!existing) throw new Error("The subscriber row vanished between insert and select");
          row = existing;
          state = {
            status: existing.status,
            mailQueuedAt: toDate(existing.mail_queued_at),
            mailDay: existing.mail_day,
            mailsOnDay: Number(existing.mails_on_day),
          };
        }

        let decision = decideSignup(state, now, limits);
        if (decision.sendMail) {
          const held = mailHeldBack(mailbox, now, limits);
          if (held) decision = { status: "pending", sendMail: false, reason: `mailbox_${held}` };
        }
        if (decision.sendMail && input.clientKey) {
          // Mails a client's signups caused today; counted only when a mail would go out.
          const dayStart = new Date(`${utcDay(now)}T00:00:00.000Z`);
          const [counted] = await tx.query<{ hits: number }>(
            `insert into rate_limits (bucket, window_start, hits) values ($1, $2::timestamptz, 1)
             on conflict (bucket, window_start) do update set hits = rate_limits.hits + 1
             returning hits`,
            [`mails-per-day:${input.clientKey}`, dayStart.toISOString()],
          );
          if (Number(counted.hits) > limits.confirmationMailsPerClientPerDay)
            decision = { status: "pending", sendMail: false, reason: "client_daily_cap" };
        }

        // An unsubscribed address signing up again waits for a new confirmation; its earlier
        // consent, confirmation and unsubscribe stay recorded until that confirmation comes.
        const resubscribe = state?.status === "unsubscribed";
        if (!decision.sendMail) {
          if (resubscribe) {
            await tx.query(
              `update subscribers set status = 'pending', signed_up_at = $2::timestamptz, pending_consent_source = $3,
                 pending_consent_at = $2::timestamptz, updated_at = $2::timestamptz where id = $1`,
              [row.id, nowIso, consentSource],
            );
          }
          return { decision, mailJobId: null };
        }

        await tx.query(
          `update mailbox_mail_limits set last_mail_at = $2::timestamptz, mail_day = $3::date, mails_on_day = $4
           where mailbox_hash = $1`,
          [mailboxHash, nowIso, utcDay(now), mailsToday(mailbox, now) + 1],
        );
        // A fresh pair of tokens for the new mail: only hashes are stored, so the previous mail's
        // links stop working and the newest mail is the one that counts.
        const tokens = await mintTokens(now, input.confirmTokenTtlHours);
        await tx.query(
          `update subscribers set status = 'pending', confirm_token_hash = $2, confirm_expires_at = $3::timestamptz,
             unsubscribe_token_hash = $4, mail_queued_at = $5::timestamptz, mail_day = $6::date, mails_on_day = $7,
             signed_up_at = case when $8 then $5::timestamptz else signed_up_at end,
             pending_consent_source = case when $8 then $9 else pending_consent_source end,
             pending_consent_at = case when $8 then $5::timestamptz else pending_consent_at end,
             updated_at = $5::timestamptz
           where id = $1`,
          [
            row.id,
            tokens.confirmHash,
            tokens.expiresAt.toISOString(),
            tokens.unsubscribeHash,
            nowIso,
            utcDay(now),
            (state ? mailsToday(state, now) : 0) + 1,
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
          // The signup's consent becomes the confirmed one; an address that had refused mail
          // (5xx) accepts it again now that a mail reached it.
          await tx.query(
            `update subscribers set status = 'confirmed', confirmed_at = $2::timestamptz,
               consent_source = case when pending_consent_at is null then consent_source else pending_consent_source end,
               consent_at = coalesce(pending_consent_at, consent_at),
               pending_consent_source = null, pending_consent_at = null,
               undeliverable_at = null, undeliverable_reason = null, updated_at = $2::timestamptz
             where id = $1`,
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
          `select id, status from subscribers where unsubscribe_token_hash = $1 for update`,
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

    /** Extends the lease on jobs this sender is still sending (see `claimDueJobs`). */
    async renewClaims(jobIds: string[], lockedUntil: Date): Promise<void> {
      if (jobIds.length === 0) return;
      await db.query(
        `update mail_jobs set locked_until = $2::timestamptz where id = any($1::uuid[]) and status = 'queued'`,
        [jobIds, lockedUntil.toISOString()],
      );
    },

    /**
     * Frees every claim at once. Only for a database one process owns (PGlite): whatever is
     * claimed when that process starts was claimed by one that died. A mail its SMTP server had
     * accepted just before the crash goes out again: at most the one batch that was in flight.
     */
    async releaseAllClaims(): Promise<number> {
      const rows = await db.query(
        `update mail_jobs set locked_until = null where status = 'queued' and locked_until is not null returning id`,
      );
      return rows.length;
    },

    /**
     * The SMTP server refused the address for good (5xx): the job fails now, and the address gets
     * no further mail until it signs up and confirms again. Locks subscriber before job, as
     * `markSent` does.
     */
    async markRejected(jobId: string, error: string, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        const [subscriber] = await tx.query<{ id: string }>(
          `select id from subscribers where id = (select subscriber_id from mail_jobs where id = $1) for update`,
          [jobId],
        );
        await tx.query(
          `update mail_jobs set status = 'abandoned', payload = null, locked_until = null, last_error = $2 where id = $1`,
          [jobId, error.slice(0, 1000)],
        );
        if (subscriber) {
          await tx.query(
            `update subscribers set undeliverable_at = $2::timestamptz, undeliverable_reason = $3, updated_at = $2::timestamptz
             where id = $1`,
            [subscriber.id, now.toISOString(), error.slice(0, 1000)],
          );
        }
      });
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

    /**
     * Tidies what nobody needs any more: addresses that signed up, never confirmed and have no
     * history are deleted; an unsubscribed address whose new signup was never confirmed goes back
     * to unsubscribed, its unsubscribe kept (the purge never deletes one); and counters of days
     * and windows that are over.
     */
    async purge(now: Date, pendingAfterDays: number): Promise<{ subscribers: number }> {
      const cutoff = new Date(now.getTime() - pendingAfterDays * 86_400_000).toISOString();
      const deleted = await db.query(
        `delete from subscribers where status = 'pending' and unsubscribed_at is null and confirmed_at is null
           and coalesce(mail_queued_at, signed_up_at) < $1::timestamptz returning id`,
        [cutoff],
      );
      await db.query(
        `update subscribers set status = 'unsubscribed', pending_consent_source = null, pending_consent_at = null,
           confirm_token_hash = null, confirm_expires_at = null, updated_at = $2::timestamptz
         where status = 'pending' and unsubscribed_at is not null
           and coalesce(mail_queued_at, signed_up_at) < $1::timestamptz`,
        [cutoff, now.toISOString()],
      );
      // Per-minute windows and the per-day client counts (kept two days, so today's is whole).
      const twoDaysAgo = new Date(now.getTime() - 2 * 86_400_000).toISOString();
      await db.query(`delete from rate_limits where window_start < $1::timestamptz`, [twoDaysAgo]);
      await db.query(`delete from mailbox_mail_limits where last_mail_at < $1::timestamptz`, [twoDaysAgo]);
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
        `select email, status, signed_up_at, confirmed_at, unsubscribed_at, consent_source, consent_at,
           pending_consent_source, pending_consent_at
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
        pending_consent_source:
          row.pending_consent_source === null ? null : String(row.pending_consent_source),
        pending_consent_at: toDate(row.pending_consent_at),
      }));
    },
  };
}

export type SubscriberStore = ReturnType<typeof createSubscriberStore>;
export const SUBSCRIBER_STATUSES = STATUSES;
