/**
 * Subscriptions: a signup, a confirmation and an unsubscribe, each in one transaction over
 * `SqlExecutor` (the same SQL on PGlite, any PostgreSQL and Supabase), and the purge of addresses
 * that never confirmed. Decisions come from `subscription-lifecycle.ts`; this module reads the row
 * under a lock, asks, and writes the answer, with its mail job (`mail-queue.ts`) when one is due.
 */
import { type ConfirmationPayload, enqueueConfirmation, supersedeQueued } from "./mail-queue.ts";
import { type SqlExecutor, toDate } from "./sql-executor.ts";
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

const payloadOf = (tokens: NewTokens): ConfirmationPayload => ({
  confirmToken: tokens.confirmToken,
  unsubscribeToken: tokens.unsubscribeToken,
  expiresAt: tokens.expiresAt.toISOString(),
});

export function createSubscriptions(db: SqlExecutor) {
  return {
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
          const mailJobId = await enqueueConfirmation(
            tx,
            inserted[0].id,
            inserted[0].email,
            payloadOf(tokens),
            now,
          );
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
          // Only the newest mail goes out: an older one still queued carries dead links.
          await supersedeQueued(tx, row.id);
          const mailJobId = await enqueueConfirmation(tx, row.id, row.email, payloadOf(tokens), now);
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

    /** Deletes pending addresses that never confirmed within `pendingAfterDays`. */
    async purgePending(now: Date, pendingAfterDays: number): Promise<{ subscribers: number }> {
      const cutoff = new Date(now.getTime() - pendingAfterDays * 86_400_000).toISOString();
      const deleted = await db.query(
        `delete from subscribers where status = 'pending' and coalesce(mail_queued_at, signed_up_at) < $1::timestamptz returning id`,
        [cutoff],
      );
      return { subscribers: deleted.length };
    },
  };
}

export type Subscriptions = ReturnType<typeof createSubscriptions>;
