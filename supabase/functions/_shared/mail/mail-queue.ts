/**
 * The mail queue: durable jobs in `mail_jobs` (the confirmation, its one reminder, the welcome), written in the same transaction as the change that
 * needs the mail, claimed by senders with `for update skip locked` so several instances share the
 * queue without sending a mail twice. A job has one of three states, each one word: `queued`
 * (waiting, or waiting for its retry: `scheduleRetry`), `sent`, or `abandoned` (it will never be
 * sent: its link expired, a newer mail superseded it, or the server refused the address for good).
 */
import { type SqlExecutor, type SqlQueryable, toDate } from "../db/sql-executor.ts";
import { markUndeliverable, recordMailSent, renewPendingTokens } from "../subscriptions/subscriber-rows.ts";
import { newToken, sha256Hex } from "../subscriptions/tokens.ts";

/** What a confirmation job carries until it is sent: the raw tokens for the mail's links. */
export interface ConfirmationPayload {
  confirmToken: string;
  unsubscribeToken: string;
  expiresAt: string;
}

/**
 * `confirmation`: the signup's mail, its tokens in the payload. `reminder`: queued with it, due
 * `REMINDER_AFTER_HOURS` later; its fresh link is made when it is sent (`startReminder`).
 * `welcome`: queued by the confirmation; the latest published Effect, chosen when it is sent.
 */
export type MailKind = "confirmation" | "reminder" | "welcome";

/** A signup still unconfirmed this long after its mail gets one reminder. */
export const REMINDER_AFTER_HOURS = 24;

export interface MailJob {
  id: string;
  kind: MailKind;
  subscriberId: string;
  recipient: string;
  attempts: number;
  payload: ConfirmationPayload | null;
}

/** Queues a confirmation mail inside the caller's transaction. */
export async function enqueueConfirmation(
  tx: SqlQueryable,
  subscriberId: string,
  recipient: string,
  payload: ConfirmationPayload,
  now: Date,
): Promise<string> {
  const [job] = await tx.query<{ id: string }>(
    `insert into mail_jobs (subscriber_id, kind, recipient, payload, next_attempt_at, created_at)
     values ($1, 'confirmation', $2, $3::jsonb, $4::timestamptz, $4::timestamptz)
     returning id`,
    [subscriberId, recipient, JSON.stringify(payload), now.toISOString()],
  );
  return job.id;
}

/**
 * Whether the signup's reminder is still to come: `new` when this signup has none yet (it is
 * then counted against the caps, `subscriber-store.ts`), `moved` when a resend supersedes the one
 * it has (queued again from the new mail, not counted twice), `none` when it had its reminder or
 * is not pending. Inside the caller's transaction, after the signup's row is written.
 */
export async function reminderDue(tx: SqlQueryable, subscriberId: string): Promise<"new" | "moved" | "none"> {
  const [row] = await tx.query<{ wanted: boolean; counted: boolean }>(
    `select s.status = 'pending' and (s.reminded_at is null or s.reminded_at < s.signed_up_at) as wanted,
       exists (select 1 from mail_jobs j
               where j.subscriber_id = s.id and j.kind = 'reminder' and j.created_at >= s.signed_up_at) as counted
     from subscribers s where s.id = $1`,
    [subscriberId],
  );
  if (!row?.wanted) return "none";
  return row.counted ? "moved" : "new";
}

/**
 * Queues the signup's one reminder, due `REMINDER_AFTER_HOURS` after its mail, unless this signup
 * has had its reminder already (a resend does not earn a second). Inside the caller's transaction.
 */
export async function enqueueReminder(
  tx: SqlQueryable,
  subscriberId: string,
  recipient: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `insert into mail_jobs (subscriber_id, kind, recipient, next_attempt_at, created_at)
     select id, 'reminder', $2, $3::timestamptz, $4::timestamptz from subscribers
     where id = $1 and status = 'pending' and (reminded_at is null or reminded_at < signed_up_at)`,
    [
      subscriberId,
      recipient,
      new Date(now.getTime() + REMINDER_AFTER_HOURS * 3_600_000).toISOString(),
      now.toISOString(),
    ],
  );
}

/**
 * Queues the welcome mail of each reader, inside the caller's transaction: the confirmation's, or
 * an import's with `--welcome` (one statement for the batch).
 */
export async function enqueueWelcomes(
  tx: SqlQueryable,
  readers: { id: string; email: string }[],
  now: Date,
): Promise<void> {
  if (readers.length === 0) return;
  await tx.query(
    `insert into mail_jobs (subscriber_id, kind, recipient, next_attempt_at, created_at)
     select r.id, 'welcome', r.email, $3::timestamptz, $3::timestamptz
     from unnest($1::uuid[], $2::text[]) as r(id, email)`,
    [readers.map((reader) => reader.id), readers.map((reader) => reader.email), now.toISOString()],
  );
}

/** Queues the welcome mail inside the confirmation's transaction. */
export const enqueueWelcome = (tx: SqlQueryable, subscriberId: string, recipient: string, now: Date) =>
  enqueueWelcomes(tx, [{ id: subscriberId, email: recipient }], now);

/**
 * Older mails to a subscriber still queued (an SMTP outage) carry links that no longer work once
 * new tokens are issued: they are abandoned, inside the caller's transaction.
 */
export async function supersedeQueued(tx: SqlQueryable, subscriberId: string): Promise<void> {
  await tx.query(
    `update mail_jobs set status = 'abandoned', payload = null, locked_until = null,
       last_error = 'Superseded by a newer confirmation mail'
     where subscriber_id = $1 and status = 'queued'`,
    [subscriberId],
  );
}

/** jsonb arrives parsed from PGlite and node-postgres; a string (a json column) is parsed here. */
function readPayload(value: unknown): ConfirmationPayload | null {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  const record = (parsed ?? null) as Partial<ConfirmationPayload> | null;
  if (typeof record?.confirmToken !== "string" || typeof record.unsubscribeToken !== "string") return null;
  return {
    confirmToken: record.confirmToken,
    unsubscribeToken: record.unsubscribeToken,
    expiresAt: String(record.expiresAt),
  };
}

/** Mail still waiting for these readers is never sent: abandoned, each with its reader's reason. */
export async function abandonQueuedMail(
  tx: SqlQueryable,
  readers: { id: string; reason: string }[],
): Promise<void> {
  if (readers.length === 0) return;
  await tx.query(
    `update mail_jobs j set status = 'abandoned', payload = null, locked_until = null, last_error = r.reason
     from unnest($1::uuid[], $2::text[]) as r(id, reason)
     where j.subscriber_id = r.id and j.status = 'queued'`,
    [readers.map((reader) => reader.id), readers.map((reader) => reader.reason.slice(0, 1000))],
  );
}

/**
 * Suppression, the one way it is written: readers whose mail was refused for good (a 5xx from
 * the mail server while sending a mail or an Effect, a hard bounce, temporary bounces on days in a
 * row) are marked with their reason and time (`subscriber-rows.ts`), and mail still waiting for
 * them is abandoned. In the caller's transaction, each reader's row locked or written first.
 */
export async function suppressReaders(
  tx: SqlQueryable,
  readers: { id: string; reason: string }[],
  now: Date,
): Promise<void> {
  await markUndeliverable(tx, readers, now);
  await abandonQueuedMail(tx, readers);
}

export function createMailQueue(db: SqlExecutor) {
  return {
    /**
     * Takes up to `limit` due jobs for this sender until `lockedUntil`; `skip locked` lets several
     * senders (function instances) share the queue without sending a mail twice.
     */
    async claimDue(now: Date, lockedUntil: Date, limit: number): Promise<MailJob[]> {
      const rows = await db.query<{
        id: string;
        kind: MailKind;
        subscriber_id: string;
        recipient: string;
        attempts: number;
        payload: unknown;
      }>(
        `update mail_jobs set attempts = attempts + 1, locked_until = $2::timestamptz
         where id in (
           select id from mail_jobs
           where status = 'queued' and next_attempt_at <= $1::timestamptz
             and (locked_until is null or locked_until <= $1::timestamptz)
           order by next_attempt_at
           limit $3
           for update skip locked)
         returning id, kind, subscriber_id, recipient, attempts, payload`,
        [now.toISOString(), lockedUntil.toISOString(), limit],
      );
      return rows.map((row) => ({
        id: row.id,
        kind: row.kind,
        subscriberId: row.subscriber_id,
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
        if (subscriber) await recordMailSent(tx, subscriber.id, jobId, now);
      });
    },

    /**
     * A due reminder's fresh link: new tokens for a signup still waiting for its confirmation (the
     * earlier links stop working, as for a resend), or null when there is nothing to remind of
     * (confirmed meanwhile, unsubscribed, purged, or refused mail since). In one transaction,
     * subscriber locked first as everywhere.
     */
    async startReminder(job: MailJob, now: Date, ttlHours: number): Promise<ConfirmationPayload | null> {
      const confirmToken = newToken();
      const unsubscribeToken = newToken();
      const expiresAt = new Date(now.getTime() + ttlHours * 3_600_000);
      const renewed = await renewPendingTokens(
        db,
        job.subscriberId,
        {
          confirmHash: await sha256Hex(confirmToken),
          unsubscribeHash: await sha256Hex(unsubscribeToken),
          expiresAt,
        },
        now,
      );
      return renewed ? { confirmToken, unsubscribeToken, expiresAt: expiresAt.toISOString() } : null;
    },

    async scheduleRetry(jobId: string, error: string, nextAttemptAt: Date): Promise<void> {
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
    async abandonUndeliverable(jobId: string, error: string, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        const [subscriber] = await tx.query<{ id: string }>(
          `select id from subscribers where id = (select subscriber_id from mail_jobs where id = $1) for update`,
          [jobId],
        );
        await tx.query(
          `update mail_jobs set status = 'abandoned', payload = null, locked_until = null, last_error = $2 where id = $1`,
          [jobId, error.slice(0, 1000)],
        );
        if (subscriber) await suppressReaders(tx, [{ id: subscriber.id, reason: error }], now);
      });
    },

    /** A job whose link has expired is pointless to send; it is kept, marked, for the operator. */
    async abandon(jobId: string, error: string): Promise<void> {
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
  };
}

export type MailQueue = ReturnType<typeof createMailQueue>;
