/**
 * A reader's rights, for the owner (`npm run subscribers -- show EMAIL` and `forget EMAIL`): all
 * that is kept about one address, across the tables (its row with its consent history and first
 * source, its queued and sent mail, its Effect deliveries, its returned-mail events, its mailbox's
 * counters); and forgetting it, in one transaction, keeping only a keyed hash of the address
 * (HMAC-SHA-256 under FORGET_HASH_KEY) in `forgotten_readers`, which this module alone writes, so
 * that an import asks `forgottenAmong` and never adds it again. A new signup of the address still
 * works as any: the hash stays (it only stops an import; the reader's own confirmed signup is
 * their consent, and forgetting them again finds it there).
 */
import type { SqlExecutor, SqlQueryable, SqlRow } from "../db/sql-executor.ts";
import { forgetDeliveries } from "../effect-sending/delivery-store.ts";
import { forgetEventDetails } from "../mail-events/event-store.ts";
import { deleteSubscriber } from "./subscriber-rows.ts";
import { forgetMailboxLimits } from "./subscriber-store.ts";
import { mailboxKey } from "./email-address.ts";
import { hex, sha256Hex } from "./tokens.ts";

/** One table's rows about the reader, as the database gives them. */
export interface ReaderRecord {
  subscriber: SqlRow | null;
  mailJobs: SqlRow[];
  deliveries: SqlRow[];
  events: SqlRow[];
  mailbox: SqlRow | null;
  /** When the address was forgotten, if its hash is kept. */
  forgottenAt: unknown;
}

/** How many rows of each table forgetting erased or emptied. */
export interface ForgetCounts {
  subscribers: number;
  mail_jobs: number;
  effect_deliveries: number;
  effect_unsubscribe_tokens: number;
  mail_events: number;
  mailbox_mail_limits: number;
}

/**
 * The keyed hash of addresses, whatever their letter case: HMAC-SHA-256, hex. The key is imported
 * once, so an import hashes a hundred thousand addresses without importing it each time.
 */
async function forgottenHasher(key: string): Promise<(email: string) => Promise<string>> {
  const hmacKey = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const encoder = new TextEncoder();
  return async (email) => {
    return hex(await crypto.subtle.sign("HMAC", hmacKey, encoder.encode(email.trim().toLowerCase())));
  };
}

/** The keyed hash of an address, whatever its letter case: HMAC-SHA-256, hex. */
export async function forgottenHash(key: string, email: string): Promise<string> {
  return (await forgottenHasher(key))(email);
}

const countOf = async (tx: SqlQueryable, sql: string, id: string): Promise<number> => {
  const [row] = await tx.query<{ count: number }>(sql, [id]);
  return Number(row.count);
};

export function createReadersRights(db: SqlExecutor, forgetKey: string) {
  return {
    /** Which of `emails` were forgotten: what an import asks of each batch before it adds one. */
    async forgottenAmong(tx: SqlQueryable, emails: string[]): Promise<Set<string>> {
      const hash = await forgottenHasher(forgetKey);
      const hashes = await Promise.all(emails.map(hash));
      const rows = await tx.query<{ email_hash: string }>(
        `select email_hash from forgotten_readers where email_hash = any($1::text[])`,
        [hashes],
      );
      const kept = new Set(rows.map((row) => row.email_hash));
      return new Set(emails.filter((_, index) => kept.has(hashes[index])));
    },

    /** Everything kept about `email` (any letter case); null when nothing is. */
    async show(email: string): Promise<ReaderRecord | null> {
      const hash = await forgottenHash(forgetKey, email);
      const mailboxHash = await sha256Hex(mailboxKey(email));
      return db.transaction(async (tx) => {
        const [subscriber] = await tx.query(`select * from subscribers where lower(email) = lower($1)`, [
          email,
        ]);
        const id = subscriber ? String(subscriber.id) : null;
        const byReader = (sql: string) => (id ? tx.query(sql, [id]) : Promise.resolve([]));
        const mailJobs = await byReader(
          `select kind, recipient, status, attempts, created_at, next_attempt_at, sent_at, last_error,
             payload is not null as holds_link_tokens
           from mail_jobs where subscriber_id = $1 order by created_at, id`,
        );
        const deliveries = await byReader(
          `select d.edition_date::text as edition_date, d.recipient, d.status, d.attempts, d.sent_at, d.last_error,
             (select count(*)::int from effect_unsubscribe_tokens t where t.delivery_id = d.id) as unsubscribe_tokens
           from effect_deliveries d where d.subscriber_id = $1 order by d.edition_date`,
        );
        const events = await byReader(
          `select source, event_id, kind, edition_date::text as edition_date, occurred_at, received_at, detail
           from mail_events where subscriber_id = $1 order by occurred_at, event_id`,
        );
        const [mailbox] = await tx.query(
          `select last_mail_at, mail_day::text as mail_day, mails_on_day, reminder_at
           from mailbox_mail_limits where mailbox_hash = $1`,
          [mailboxHash],
        );
        const [forgotten] = await tx.query(
          `select forgotten_at from forgotten_readers where email_hash = $1`,
          [hash],
        );
        if (!subscriber && !mailbox && !forgotten) return null;
        return {
          subscriber: subscriber ?? null,
          mailJobs,
          deliveries,
          events,
          mailbox: mailbox ?? null,
          forgottenAt: forgotten?.forgotten_at ?? null,
        };
      });
    },

    /**
     * Erases `email` (any letter case) and every personal value kept with it, in one transaction,
     * and keeps its keyed hash. An address with no row still gets its hash: no import adds it.
     */
    async forget(email: string, now: Date): Promise<ForgetCounts> {
      const hash = await forgottenHash(forgetKey, email);
      return db.transaction(async (tx) => {
        const counts: ForgetCounts = {
          subscribers: 0,
          mail_jobs: 0,
          effect_deliveries: 0,
          effect_unsubscribe_tokens: 0,
          mail_events: 0,
          mailbox_mail_limits: 0,
        };
        const [row] = await tx.query<{ id: string }>(
          `select id from subscribers where lower(email) = lower($1) for update`,
          [email],
        );
        if (row) {
          const count = (table: string) =>
            countOf(tx, `select count(*)::int as count from ${table} where subscriber_id = $1`, row.id);
          counts.mail_jobs = await count("mail_jobs");
          // The Effects it was sent stay counted, without it; its events likewise.
          const deliveries = await forgetDeliveries(tx, row.id);
          counts.effect_deliveries = deliveries.deliveries;
          counts.effect_unsubscribe_tokens = deliveries.unsubscribeTokens;
          counts.mail_events = await forgetEventDetails(tx, row.id);
          // The foreign keys take its mail jobs with it.
          counts.subscribers = (await deleteSubscriber(tx, row.id)) ? 1 : 0;
        }
        counts.mailbox_mail_limits = await forgetMailboxLimits(tx, email);
        await tx.query(
          `insert into forgotten_readers (email_hash, forgotten_at) values ($1, $2::timestamptz)
           on conflict (email_hash) do nothing`,
          [hash, now.toISOString()],
        );
        return counts;
      });
    },
  };
}

export type ReadersRights = ReturnType<typeof createReadersRights>;
