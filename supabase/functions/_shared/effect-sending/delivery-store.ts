/**
 * Every statement of the Effect sender, in portable SQL over `SqlExecutor` (PGlite, PostgreSQL,
 * Supabase). An edition's recipients are fixed when it is prepared; senders claim deliveries with
 * `for update skip locked`, so two senders never hold the same row; a row a dead sender left in
 * `sending` becomes `unknown` and is only sent again on request.
 */
import { type SqlExecutor, type SqlQueryable, toDate } from "../db/sql-executor.ts";
import { suppressReaders } from "../mail/mail-queue.ts";
import { newToken, sha256Hex } from "../subscriptions/tokens.ts";
import type { MailEdition } from "./edition.ts";

export const DELIVERY_STATES = ["queued", "sending", "sent", "failed", "skipped", "unknown"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
export type EditionState = "sending" | "paused";

export interface ClaimedDelivery {
  id: string;
  /** Whose mail it is: its envelope sender names them (mail/bounce-token.ts). */
  subscriberId: string;
  recipient: string;
  /** The raw token of this mail's unsubscribe link; only its hash is kept once the row is recorded. */
  unsubscribeToken: string;
}

/** A claimed batch: its deliveries in the order they are sent (by id), and its name. */
export interface ClaimedBatch {
  deliveries: ClaimedDelivery[];
  /** With a mail API that keeps keys: the batch's name, its idempotency key. */
  batchKey: string | null;
  skipped: number;
}

/**
 * What happened to one mail of a batch: sent; refused for good or for now; over a mail API that
 * keeps keys, `in_doubt` (no clear answer: the same request goes again under its key after the
 * backoff) or `unknown` (the API says the key was used for other bytes: it went out once, in a
 * form the sender cannot tell).
 */
export type DeliveryOutcome =
  | { id: string; result: "sent" }
  | { id: string; result: "permanent" | "temporary" | "in_doubt" | "unknown"; reason: string };

export interface EditionStatus {
  date: string;
  state: EditionState;
  counts: Record<DeliveryState, number>;
  consecutiveFailures: number;
  lastError: string | null;
  preparedAt: Date | null;
  /** The last `send-effect` call's account of itself, if one ran. */
  lastCall: SendCall | null;
  /** Recipients of this edition whose mail later bounced or was reported as spam (mail-events). */
  events: { bounced: number; softBounced: number; complained: number; senderRefused: number };
}

/** What a `send-effect` call did, kept with its edition for `effect status`. */
export interface SendCall {
  /** ISO time it ended. */
  at: string;
  sent: number;
  /** The CPU it counted: what the call used, and the worker's total when it ended (ms). */
  cpuMs: number | null;
  workerCpuMs: number | null;
  /** "process": the runtime's own CPU clock; "estimate": counted from the work (cpu-clock.ts). */
  clock: "process" | "estimate" | null;
  budgetMs: number | null;
  /** Why it stopped with mail still queued: "time", "cpu" (its budget), "signal" (the platform's stop). */
  stoppedBy: string | null;
}

export interface RetryPolicy {
  baseSeconds: number;
  maxSeconds: number;
  /** Temporary failures in a row after which the edition pauses. */
  pauseAfter: number;
}

/** When a delivery that failed for now is tried again: $3 now, $4 the first delay, $5 the longest, doubled per attempt. */
const BACKOFF = `$3::timestamptz
  + least($5::float8, $4::float8 * power(2, greatest(d.attempts - 1, 0))) * interval '1 second'`;

/** Whether a subscriber may still get an Effect: confirmed, and not refused since it last confirmed. */
const DELIVERABLE = `(s.status = 'confirmed' and not s.suppressed)`;

export function createDeliveryStore(db: SqlExecutor) {
  return {
    /**
     * Creates the edition and one delivery per deliverable confirmed subscriber, in one
     * transaction. An edition that exists already is left as it is: its recipients were fixed
     * when it was first prepared. Concurrent calls make one edition (the second waits on the key).
     */
    async prepare(edition: MailEdition, now: Date): Promise<{ created: boolean; recipients: number }> {
      return db.transaction(async (tx) => {
        const created = await tx.query(
          `insert into effect_editions (edition_date, subject, html, text, url, prepared_at)
           values ($1::date, $2, $3, $4, $5, $6::timestamptz)
           on conflict (edition_date) do nothing
           returning edition_date`,
          [edition.date, edition.subject, edition.html, edition.text, edition.url, now.toISOString()],
        );
        // A welcome mail may have made the row before the day's send: its recipients are fixed now, once.
        const fixing =
          created.length === 1 ||
          (
            await tx.query(
              `update effect_editions set recipients_fixed = true
               where edition_date = $1::date and not recipients_fixed returning edition_date`,
              [edition.date],
            )
          ).length === 1;
        if (!fixing) {
          const [row] = await tx.query<{ count: number }>(
            `select count(*)::int as count from effect_deliveries where edition_date = $1::date`,
            [edition.date],
          );
          return { created: false, recipients: Number(row.count) };
        }
        const inserted = await tx.query(
          `insert into effect_deliveries (edition_date, subscriber_id, recipient, next_attempt_at)
           select $1::date, s.id, s.email, $2::timestamptz from subscribers s where ${DELIVERABLE}
           on conflict (edition_date, subscriber_id) do nothing
           returning id`,
          [edition.date, now.toISOString()],
        );
        return { created: true, recipients: inserted.length };
      });
    },

    /**
     * The welcome mail's delivery of `edition` to a reader who just confirmed, recorded as that
     * edition's delivery so the day's send does not mail it again: `sending` under the lease
     * `welcome` with a fresh unsubscribe token, and the mail as the edition keeps it (the row is
     * made if the day's send has not made it yet, its recipients not fixed). "had": the reader has
     * a delivery of it already (sent, or being sent); "gone": no longer confirmed, or refused mail.
     */
    async claimWelcome(
      edition: MailEdition,
      subscriberId: string,
      now: Date,
      leaseUntil: Date,
    ): Promise<{ delivery: ClaimedDelivery; edition: MailEdition } | "had" | "gone"> {
      return db.transaction(async (tx) => {
        const [subscriber] = await tx.query<{ email: string; wanted: boolean }>(
          `select s.email, ${DELIVERABLE} as wanted from subscribers s where s.id = $1 for update`,
          [subscriberId],
        );
        if (!subscriber?.wanted) return "gone";
        await tx.query(
          `insert into effect_editions (edition_date, subject, html, text, url, prepared_at, recipients_fixed)
           values ($1::date, $2, $3, $4, $5, $6::timestamptz, false)
           on conflict (edition_date) do nothing`,
          [edition.date, edition.subject, edition.html, edition.text, edition.url, now.toISOString()],
        );
        const [existing] = await tx.query<{ id: string; status: DeliveryState }>(
          `select id, status from effect_deliveries where edition_date = $1::date and subscriber_id = $2 for update`,
          [edition.date, subscriberId],
        );
        if (existing && existing.status !== "queued") return "had";
        const [row] = existing
          ? await tx.query<{ id: string }>(
              `update effect_deliveries set status = 'sending', attempts = attempts + 1, lease_owner = 'welcome',
                 lease_until = $2::timestamptz, batch_key = null, claimed_at = null, pending_token = null
               where id = $1 returning id`,
              [existing.id, leaseUntil.toISOString()],
            )
          : await tx.query<{ id: string }>(
              `insert into effect_deliveries (edition_date, subscriber_id, recipient, status, attempts, lease_owner, lease_until)
               values ($1::date, $2, $3, 'sending', 1, 'welcome', $4::timestamptz) returning id`,
              [edition.date, subscriberId, subscriber.email, leaseUntil.toISOString()],
            );
        const token = newToken();
        await tx.query(
          `insert into effect_unsubscribe_tokens (token_hash, subscriber_id, delivery_id, created_at)
           values ($1, $2, $3, $4::timestamptz)`,
          [await sha256Hex(token), subscriberId, row.id, now.toISOString()],
        );
        const [stored] = await tx.query<{ subject: string; html: string; text: string; url: string }>(
          `select subject, html, text, url from effect_editions where edition_date = $1::date`,
          [edition.date],
        );
        return {
          delivery: { id: row.id, subscriberId, recipient: subscriber.email, unsubscribeToken: token },
          edition: { date: edition.date, ...stored },
        };
      });
    },

    /** The welcome's delivery after its send: sent, failed for good, or queued again (its job retries). */
    async finishWelcome(
      deliveryId: string,
      result: "sent" | "failed" | "queued",
      now: Date,
      reason?: string,
    ): Promise<void> {
      await db.query(
        `update effect_deliveries set status = $2, lease_owner = null, lease_until = null,
           sent_at = case when $2 = 'sent' then $3::timestamptz else sent_at end,
           next_attempt_at = $3::timestamptz, last_error = $4
         where id = $1 and status in ('sending', 'unknown')`,
        [deliveryId, result, now.toISOString(), reason?.slice(0, 1000) ?? null],
      );
    },

    /**
     * The edition as prepared (the mail every recipient gets), or null when it is not prepared: its
     * recipients not fixed yet (a welcome mail's row alone does not count).
     */
    async edition(date: string): Promise<MailEdition | null> {
      const [row] = await db.query<{ subject: string; html: string; text: string; url: string }>(
        `select subject, html, text, url from effect_editions where edition_date = $1::date and recipients_fixed`,
        [date],
      );
      return row ? { date, subject: row.subject, html: row.html, text: row.text, url: row.url } : null;
    },

    /**
     * Rows in `sending` whose sender is gone become `unknown`: the mail may or may not have been
     * accepted, so it is not sent again unless the operator asks. `all`: every `sending` row is
     * stale (PGlite, which one process holds); otherwise only those whose lease has run out.
     * `keysKeptSince`: with a mail API that keeps idempotency keys, a batch claimed after it is not
     * in doubt (`reclaimInDoubt` sends it again under its key); under `all` its lease is ended so
     * that it can be.
     */
    async markStaleAsUnknown(now: Date, all: boolean, keysKeptSince?: Date): Promise<number> {
      const retriable = `(batch_key is not null and claimed_at > $3::timestamptz)`;
      const kept = keysKeptSince?.toISOString() ?? null;
      if (all && kept)
        await db.query(
          `update effect_deliveries set lease_until = $2::timestamptz - interval '1 millisecond'
           where status = 'sending' and $1 and ${retriable}`,
          [all, now.toISOString(), kept],
        );
      const rows = await db.query(
        `update effect_deliveries set status = 'unknown', lease_owner = null, lease_until = null,
           pending_token = null,
           last_error = 'The sender stopped while this mail was being sent: it may or may not have gone out'
         where status = 'sending' and ($1 or lease_until < $2::timestamptz)
           and not ($3::timestamptz is not null and ${retriable})
         returning id`,
        [all, now.toISOString(), kept],
      );
      return rows.length;
    },

    /**
     * A batch a stopped sender left in `sending` (its lease run out) while its idempotency key
     * still lives, taken over by `owner` as it was: the same rows, the same tokens, the same key,
     * so the request is the same bytes and the mail API sends it once. Null when there is none.
     */
    async reclaimInDoubt(
      date: string,
      owner: string,
      now: Date,
      leaseUntil: Date,
      keysKeptSince: Date,
    ): Promise<ClaimedBatch | null> {
      const reclaimed = await db.transaction(async (tx) => {
        const [candidate] = await tx.query<{ batch_key: string }>(
          `select batch_key from effect_deliveries
           where edition_date = $1::date and status = 'sending' and lease_until < $2::timestamptz
             and batch_key is not null and claimed_at > $3::timestamptz
           order by lease_until limit 1`,
          [date, now.toISOString(), keysKeptSince.toISOString()],
        );
        if (!candidate) return null;
        // One taker per batch: a second sender waits here, then finds its lease renewed.
        await tx.query("select pg_advisory_xact_lock(hashtext($1))", [candidate.batch_key]);
        const rows = await tx.query<{
          id: string;
          subscriber_id: string;
          recipient: string;
          pending_token: string | null;
        }>(
          `update effect_deliveries set lease_owner = $3, lease_until = $4::timestamptz, attempts = attempts + 1
           where batch_key = $1 and status = 'sending' and lease_until < $2::timestamptz
           returning id, subscriber_id, recipient, pending_token`,
          [candidate.batch_key, now.toISOString(), owner, leaseUntil.toISOString()],
        );
        return { candidate, rows };
      });
      if (!reclaimed) return null;
      const { candidate, rows } = reclaimed;
      if (rows.length === 0) return { deliveries: [], batchKey: candidate.batch_key, skipped: 0 };
      return {
        deliveries: rows
          .map((row) => ({
            id: row.id,
            subscriberId: row.subscriber_id,
            recipient: row.recipient,
            unsubscribeToken: row.pending_token ?? "",
          }))
          .sort((a, b) => (a.id < b.id ? -1 : 1)),
        batchKey: candidate.batch_key,
        skipped: 0,
      };
    },

    /** How many rows of the edition are in `sending` under a key the mail API still keeps. */
    async inDoubt(date: string, keysKeptSince: Date): Promise<number> {
      const [row] = await db.query<{ count: number }>(
        `select count(*)::int as count from effect_deliveries
         where edition_date = $1::date and status = 'sending' and batch_key is not null
           and claimed_at > $2::timestamptz`,
        [date, keysKeptSince.toISOString()],
      );
      return row?.count ?? 0;
    },

    /** `send --retry-unknown`: the edition's unknown deliveries are queued again. */
    async requeueUnknown(date: string, now: Date): Promise<number> {
      const rows = await db.query(
        `update effect_deliveries set status = 'queued', next_attempt_at = $2::timestamptz,
           batch_key = null, claimed_at = null, pending_token = null
         where edition_date = $1::date and status = 'unknown' returning id`,
        [date, now.toISOString()],
      );
      return rows.length;
    },

    /** A new run resumes a paused edition; due deliveries are tried at once. */
    async resume(date: string, now: Date): Promise<boolean> {
      const rows = await db.query(
        `update effect_editions set status = 'sending', consecutive_failures = 0, paused_at = null
         where edition_date = $1::date and status = 'paused' returning edition_date`,
        [date],
      );
      if (rows.length > 0)
        await db.query(
          `update effect_deliveries set next_attempt_at = $2::timestamptz
           where edition_date = $1::date and status = 'queued' and next_attempt_at > $2::timestamptz`,
          [date, now.toISOString()],
        );
      return rows.length > 0;
    },

    /**
     * Takes up to `limit` due deliveries for `owner` until `leaseUntil`, and gives each a fresh
     * unsubscribe token. A recipient who is no longer subscribed is skipped here, in the same
     * statement, so an unsubscribe that arrives before their turn is honoured.
     */
    async claim(
      date: string,
      owner: string,
      now: Date,
      leaseUntil: Date,
      limit: number,
      /** With a mail API that keeps keys: the batch's name; its rows keep their raw tokens until recorded. */
      batchKey: string | null = null,
    ): Promise<ClaimedBatch> {
      return db.transaction(async (tx) => {
        const rows = await tx.query<{ id: string; subscriber_id: string; recipient: string; status: string }>(
          `with picked as (
             select d.id, ${DELIVERABLE} as wanted
             from effect_deliveries d
               join subscribers s on s.id = d.subscriber_id
               join effect_editions e on e.edition_date = d.edition_date
             where d.edition_date = $1::date and d.status = 'queued' and d.next_attempt_at <= $2::timestamptz
               and e.status = 'sending'
             order by d.next_attempt_at, d.id
             limit $5
             for update of d skip locked)
           update effect_deliveries d set
             status = case when picked.wanted then 'sending' else 'skipped' end,
             attempts = d.attempts + case when picked.wanted then 1 else 0 end,
             lease_owner = case when picked.wanted then $3 end,
             lease_until = case when picked.wanted then $4::timestamptz end,
             batch_key = case when picked.wanted then $6 end,
             claimed_at = case when picked.wanted then $2::timestamptz end,
             last_error = case when picked.wanted then d.last_error else 'No longer subscribed when its turn came' end
           from picked where d.id = picked.id
           returning d.id, d.subscriber_id, d.recipient, d.status`,
          [date, now.toISOString(), owner, leaseUntil.toISOString(), limit, batchKey],
        );
        const sending = rows.filter((row) => row.status === "sending");
        const tokens = sending.map(() => newToken());
        // Hashed by the database (as sha256Hex would: SHA-256 of the UTF-8 text, in hex): a hundred
        // digests through Web Crypto cost a function's worker 7 ms of its CPU budget a batch.
        if (sending.length > 0)
          await tx.query(
            `insert into effect_unsubscribe_tokens (token_hash, subscriber_id, delivery_id, created_at)
             select encode(sha256(convert_to(token, 'UTF8')), 'hex'), subscriber_id, delivery_id, $4::timestamptz
             from unnest($1::text[], $2::uuid[], $3::uuid[]) as t(token, subscriber_id, delivery_id)`,
            [
              tokens,
              sending.map((row) => row.subscriber_id),
              sending.map((row) => row.id),
              now.toISOString(),
            ],
          );
        // Kept only while the batch may have to be sent again as the same bytes.
        if (batchKey !== null && sending.length > 0)
          await tx.query(
            `update effect_deliveries d set pending_token = t.token
             from unnest($1::uuid[], $2::text[]) as t(id, token) where d.id = t.id`,
            [sending.map((row) => row.id), tokens],
          );
        return {
          deliveries: sending
            .map((row, index) => ({
              id: row.id,
              subscriberId: row.subscriber_id,
              recipient: row.recipient,
              unsubscribeToken: tokens[index],
            }))
            .sort((a, b) => (a.id < b.id ? -1 : 1)),
          batchKey: batchKey,
          skipped: rows.length - sending.length,
        };
      });
    },

    /** Keeps `owner`'s rows in `sending` from being taken for a dead sender's. */
    async renewLease(owner: string, leaseUntil: Date): Promise<void> {
      await db.query(
        `update effect_deliveries set lease_until = $2::timestamptz where status = 'sending' and lease_owner = $1`,
        [owner, leaseUntil.toISOString()],
      );
    },

    /**
     * Records a batch's outcomes (in the order they happened) in one transaction: sent; failed for
     * good (the address is marked so no later Effect goes to it); or queued again with backoff.
     * Counts temporary failures in a row and pauses the edition at `policy.pauseAfter`.
     * A row that became `unknown` meanwhile (this sender's lease ran out) is still recorded as
     * sent: the mail did go out.
     */
    async complete(
      date: string,
      owner: string,
      outcomes: DeliveryOutcome[],
      now: Date,
      policy: RetryPolicy,
    ): Promise<{ paused: boolean }> {
      const nowIso = now.toISOString();
      const sent = outcomes.filter((outcome) => outcome.result === "sent").map((outcome) => outcome.id);
      const failed = outcomes.filter(
        (outcome): outcome is Extract<DeliveryOutcome, { reason: string }> => outcome.result === "permanent",
      );
      const retried = outcomes.filter(
        (outcome): outcome is Extract<DeliveryOutcome, { reason: string }> => outcome.result === "temporary",
      );
      const inDoubt = outcomes.filter(
        (outcome): outcome is Extract<DeliveryOutcome, { reason: string }> => outcome.result === "in_doubt",
      );
      const unknown = outcomes.filter(
        (outcome): outcome is Extract<DeliveryOutcome, { reason: string }> => outcome.result === "unknown",
      );
      const mine = `(d.status = 'unknown' or (d.status = 'sending' and d.lease_owner = $2))`;
      return db.transaction(async (tx) => {
        if (sent.length > 0)
          await tx.query(
            `update effect_deliveries d set status = 'sent', sent_at = $3::timestamptz, lease_owner = null,
               lease_until = null, last_error = null, pending_token = null
             where d.id = any($1::uuid[]) and ${mine}`,
            [sent, owner, nowIso],
          );
        if (failed.length > 0) {
          const ids = failed.map((outcome) => outcome.id);
          await tx.query(
            `update effect_deliveries d set status = 'failed', lease_owner = null, lease_until = null,
               last_error = f.reason, pending_token = null
             from unnest($1::uuid[], $3::text[]) as f(id, reason)
             where d.id = f.id and ${mine}`,
            [ids, owner, failed.map((outcome) => outcome.reason.slice(0, 1000))],
          );
          // The readers whose server refused the Effect for good are suppressed as everywhere:
          // the refusal kept as their reason, mail still waiting for them abandoned.
          const refused = await tx.query<{ id: string; reason: string }>(
            `select d.subscriber_id as id, f.reason
             from effect_deliveries d join unnest($1::uuid[], $2::text[]) as f(id, reason) on d.id = f.id`,
            [ids, failed.map((outcome) => outcome.reason)],
          );
          await suppressReaders(tx, refused, now);
        }
        if (retried.length > 0)
          await tx.query(
            `update effect_deliveries d set status = 'queued', lease_owner = null, lease_until = null,
               last_error = f.reason, pending_token = null, batch_key = null,
               next_attempt_at = ${BACKOFF}
             from unnest($1::uuid[], $6::text[]) as f(id, reason)
             where d.id = f.id and d.status = 'sending' and d.lease_owner = $2`,
            [
              retried.map((outcome) => outcome.id),
              owner,
              nowIso,
              policy.baseSeconds,
              policy.maxSeconds,
              retried.map((outcome) => outcome.reason.slice(0, 1000)),
            ],
          );
        // A batch in doubt keeps its key, its rows and their tokens, so that after the backoff it
        // is the same request again (`reclaimInDoubt`); its lease is the backoff.
        if (inDoubt.length > 0)
          await tx.query(
            `update effect_deliveries d set lease_owner = null, last_error = f.reason,
               lease_until = ${BACKOFF}
             from unnest($1::uuid[], $6::text[]) as f(id, reason)
             where d.id = f.id and d.status = 'sending' and d.lease_owner = $2`,
            [
              inDoubt.map((outcome) => outcome.id),
              owner,
              nowIso,
              policy.baseSeconds,
              policy.maxSeconds,
              inDoubt.map((outcome) => outcome.reason.slice(0, 1000)),
            ],
          );
        if (unknown.length > 0)
          await tx.query(
            `update effect_deliveries d set status = 'unknown', lease_owner = null, lease_until = null,
               pending_token = null, last_error = f.reason
             from unnest($1::uuid[], $3::text[]) as f(id, reason)
             where d.id = f.id and ${mine}`,
            [
              unknown.map((outcome) => outcome.id),
              owner,
              unknown.map((outcome) => outcome.reason.slice(0, 1000)),
            ],
          );
        // Temporary failures since the last mail that went out (a batch in doubt is one request,
        // one failure); a permanent one says nothing about the server's health.
        const lastSent = outcomes.map((outcome) => outcome.result).lastIndexOf("sent");
        const trailing = [
          ...retried.filter((outcome) => outcomes.indexOf(outcome) > lastSent),
          ...inDoubt.filter((outcome) => outcomes.indexOf(outcome) > lastSent).slice(0, 1),
        ];
        const lastError = (retried.at(-1) ?? inDoubt.at(-1))?.reason ?? null;
        const [edition] = await tx.query<{ status: EditionState }>(
          `update effect_editions set
             consecutive_failures = case when $2 then 0 else consecutive_failures end + $3,
             last_error = coalesce($4, last_error),
             status = case when (case when $2 then 0 else consecutive_failures end + $3) >= $5 then 'paused' else status end,
             paused_at = case when (case when $2 then 0 else consecutive_failures end + $3) >= $5 then $6::timestamptz else paused_at end
           where edition_date = $1::date
           returning status`,
          [
            date,
            lastSent >= 0,
            trailing.length,
            lastError?.slice(0, 1000) ?? null,
            policy.pauseAfter,
            nowIso,
          ],
        );
        return { paused: edition?.status === "paused" };
      });
    },

    /** The edition's state, or null when it is not prepared. */
    async state(date: string): Promise<EditionState | null> {
      const [row] = await db.query<{ status: EditionState }>(
        `select status from effect_editions where edition_date = $1::date`,
        [date],
      );
      return row?.status ?? null;
    },

    /** When the edition's next queued delivery is due, or null when none is queued. */
    async nextDueAt(date: string): Promise<Date | null> {
      const [row] = await db.query<{ due: unknown }>(
        `select min(case when status = 'queued' then next_attempt_at else lease_until end) as due
         from effect_deliveries
         where edition_date = $1::date
           and (status = 'queued' or (status = 'sending' and lease_owner is null and batch_key is not null))`,
        [date],
      );
      return toDate(row?.due);
    },

    /** Keeps what a `send-effect` call did, for `status`. */
    async recordCall(date: string, call: SendCall): Promise<void> {
      await db.query(`update effect_editions set last_call = $2::jsonb where edition_date = $1::date`, [
        date,
        JSON.stringify(call),
      ]);
    },

    /** Counts per state, for `status`; null when the edition is not prepared. */
    async status(date: string): Promise<EditionStatus | null> {
      const [edition] = await db.query<{
        status: EditionState;
        consecutive_failures: number;
        last_error: string | null;
        prepared_at: unknown;
        last_call: SendCall | string | null;
      }>(
        `select status, consecutive_failures, last_error, prepared_at, last_call from effect_editions where edition_date = $1::date`,
        [date],
      );
      if (!edition) return null;
      const rows = await db.query<{ status: DeliveryState; count: number }>(
        `select status, count(*)::int as count from effect_deliveries where edition_date = $1::date group by status`,
        [date],
      );
      const counts = Object.fromEntries(DELIVERY_STATES.map((state) => [state, 0])) as Record<
        DeliveryState,
        number
      >;
      for (const row of rows) counts[row.status] = Number(row.count);
      const eventRows = await db.query<{ kind: string; count: number }>(
        // A reader once each; a forgotten reader's event (no reader any more) once itself.
        `select kind, count(distinct coalesce(subscriber_id::text, source || ':' || event_id))::int as count
         from mail_events where edition_date = $1::date group by kind`,
        [date],
      );
      const eventCount = (kind: string) => Number(eventRows.find((row) => row.kind === kind)?.count ?? 0);
      return {
        date,
        state: edition.status,
        counts,
        consecutiveFailures: Number(edition.consecutive_failures),
        lastError: edition.last_error,
        preparedAt: toDate(edition.prepared_at),
        // node-postgres parses jsonb; PGlite too, but a text-typed driver would not.
        lastCall:
          typeof edition.last_call === "string"
            ? (JSON.parse(edition.last_call) as SendCall)
            : edition.last_call,
        events: {
          bounced: eventCount("bounce"),
          softBounced: eventCount("soft_bounce"),
          complained: eventCount("complaint"),
          senderRefused: eventCount("sender_refusal"),
        },
      };
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;

/**
 * A forgotten reader's deliveries (readers-rights.ts, in its transaction): those that ended (sent,
 * failed for good, or skipped) are
 * kept without the reader, its address and the server's words about it (which may quote the
 * address), so each Effect's sent and failed counts stay what they were; the others go, with every
 * unsubscribe link of the reader's. Returns how many deliveries and links were the reader's.
 */
export async function forgetDeliveries(
  tx: SqlQueryable,
  subscriberId: string,
): Promise<{ deliveries: number; unsubscribeTokens: number }> {
  const tokens = await tx.query(
    `delete from effect_unsubscribe_tokens where subscriber_id = $1 returning token_hash`,
    [subscriberId],
  );
  const kept = await tx.query(
    `update effect_deliveries
     set subscriber_id = null, recipient = null, last_error = null, lease_owner = null, lease_until = null
     where subscriber_id = $1 and status in ('sent', 'failed', 'skipped')
     returning id`,
    [subscriberId],
  );
  const dropped = await tx.query(`delete from effect_deliveries where subscriber_id = $1 returning id`, [
    subscriberId,
  ]);
  return { deliveries: kept.length + dropped.length, unsubscribeTokens: tokens.length };
}
