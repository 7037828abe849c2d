/**
 * Subscriptions: a signup, a confirmation and an unsubscribe, each in one transaction over
 * `SqlExecutor` (the same SQL on PGlite, any PostgreSQL and Supabase), and the purge of addresses
 * that never confirmed. A signup's confirmation mails also count per mailbox
 * (`mailbox_mail_limits`), so `+tag` variants of one inbox share its cooldown and daily cap; the
 * signup's 24-hour reminder counts in the same caps (and one per mailbox per purge window).
 * Decisions come from `lifecycle.ts`; this module reads the row under a lock, asks, and writes
 * the answer, with its mail job (`mail-queue.ts`) when one is due.
 */
import { utcDay } from "../contract/calendar-day.ts";
import type { SignupSource } from "../contract/signup-source.ts";
import { mailboxKey } from "./email-address.ts";
import {
  type ConfirmationPayload,
  enqueueConfirmation,
  enqueueReminder,
  enqueueWelcome,
  reminderDue,
  supersedeQueued,
} from "../mail/mail-queue.ts";
import { countClientMail } from "./rate-limit.ts";
import { type SqlExecutor, type SqlQueryable, toDate } from "../db/sql-executor.ts";
import {
  decideConfirm,
  decideSignup,
  decideUnsubscribe,
  mailHeldBack,
  reminderHeldBack,
  type MailHistory,
  mailsToday,
  type MailboxReminderState,
  type MailLimits,
  type SignupDecision,
  type SignupState,
  type SubscriberStatus,
} from "./lifecycle.ts";
import {
  insertPending,
  markConfirmed,
  markPendingAgain,
  markUnsubscribed,
  purgeNeverConfirmed,
  recordConfirmationMail,
} from "./subscriber-rows.ts";
import { newToken, sha256Hex } from "./tokens.ts";

export interface SignupLimits extends MailLimits {
  confirmationMailsPerClientPerDay: number;
  /** A mailbox gets one reminder in this many days (the purge window of pending signups). */
  purgePendingAfterDays: number;
}

export interface SignupInput {
  email: string;
  consentSource: string | null;
  /** Where the signup came from; kept only by the signup that makes the address's row. */
  source?: SignupSource | null;
  now: Date;
  limits: SignupLimits;
  confirmTokenTtlHours: number;
  /** The client's key (`clientKey` in rate-limit.ts), for its daily cap on mail; null: no cap. */
  clientKey?: string | null;
}

export interface SignupResult {
  decision: SignupDecision;
  /** Set when a confirmation mail job was written with the signup. */
  mailJobId: string | null;
  /**
   * The signup's reminder: `queued` (counted in the caps), `moved` (a resend's, counted before),
   * `none` (no reminder due, or no mail at all), or the cap that held it back (not queued).
   */
  reminder: "queued" | "moved" | "none" | "mailbox_reminded" | "mailbox_daily_cap" | "client_daily_cap";
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

/**
 * The signup's one reminder, within the caps a confirmation mail obeys: a new one is counted in
 * the mailbox's mails of the day and the client's, and a mailbox gets one per purge window; one a
 * cap holds back is not queued (the signup stays pending, and is purged as any). A resend moves
 * the reminder it already has without counting it again. Inside the signup's transaction, with
 * the mailbox's row locked.
 */
async function queueReminder(
  tx: SqlQueryable,
  input: {
    subscriberId: string;
    email: string;
    mailboxHash: string;
    mailbox: MailboxReminderState;
    clientKey: string | null;
    now: Date;
    limits: SignupLimits;
  },
): Promise<SignupResult["reminder"]> {
  const { subscriberId, email, now, limits } = input;
  const due = await reminderDue(tx, subscriberId);
  if (due === "none") return "none";
  if (due === "moved") {
    await enqueueReminder(tx, subscriberId, email, now);
    return "moved";
  }
  const held = reminderHeldBack(input.mailbox, now, limits);
  if (held) return held;
  if (
    input.clientKey &&
    (await countClientMail(tx, input.clientKey, now)) > limits.confirmationMailsPerClientPerDay
  )
    return "client_daily_cap";
  await tx.query(
    `update mailbox_mail_limits set reminder_at = $2::timestamptz, mails_on_day = mails_on_day + 1
     where mailbox_hash = $1`,
    [input.mailboxHash, now.toISOString()],
  );
  await enqueueReminder(tx, subscriberId, email, now);
  return "queued";
}

export function createSubscriberStore(db: SqlExecutor) {
  return {
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
          reminder_at: unknown;
        }>(
          `select last_mail_at, mail_day::text as mail_day, mails_on_day, reminder_at
           from mailbox_mail_limits where mailbox_hash = $1 for update`,
          [mailboxHash],
        );
        const mailbox: MailHistory = {
          mailQueuedAt: toDate(mailboxRow.last_mail_at),
          mailDay: mailboxRow.mail_day,
          mailsOnDay: Number(mailboxRow.mails_on_day),
        };

        const inserted = await insertPending(tx, email, now, consentSource, input.source ?? null);
        let row: { id: string; email: string };
        let state: SignupState | null = null;
        if (inserted) {
          row = inserted;
        } else {
          const [existing] = await tx.query<{
            id: string;
            email: string;
            status: SubscriberStatus;
            mail_queued_at: unknown;
            mail_day: string | null;
            mails_on_day: number;
            suppressed: boolean;
          }>(
            `select id, email, status, mail_queued_at, mail_day::text as mail_day, mails_on_day,
               suppressed
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
            suppressed: existing.suppressed === true,
          };
        }

        let decision = decideSignup(state, now, limits);
        if (decision.sendMail) {
          const held = mailHeldBack(mailbox, now, limits);
          if (held) decision = { status: decision.status, sendMail: false, reason: `mailbox_${held}` };
        }
        if (decision.sendMail && input.clientKey) {
          // Mails a client's signups caused today; counted only when a mail would go out.
          if ((await countClientMail(tx, input.clientKey, now)) > limits.confirmationMailsPerClientPerDay)
            decision = { status: decision.status, sendMail: false, reason: "client_daily_cap" };
        }

        // An unsubscribed address signing up again waits for a new confirmation; its earlier
        // consent, confirmation and unsubscribe stay recorded until that confirmation comes.
        const resubscribe = state?.status === "unsubscribed";
        // A confirmed address whose mail bounced records this signup's consent beside its own.
        const newConsent = resubscribe || decision.reason === "reconfirm";
        if (!decision.sendMail) {
          if (resubscribe) await markPendingAgain(tx, row.id, now, consentSource);
          return { decision, mailJobId: null, reminder: "none" };
        }

        await tx.query(
          `update mailbox_mail_limits set last_mail_at = $2::timestamptz, mail_day = $3::date, mails_on_day = $4
           where mailbox_hash = $1`,
          [mailboxHash, nowIso, utcDay(now), mailsToday(mailbox, now) + 1],
        );
        // A fresh pair of tokens for the new mail: only hashes are stored, so the previous mail's
        // links stop working and the newest mail is the one that counts.
        const tokens = await mintTokens(now, input.confirmTokenTtlHours);
        await recordConfirmationMail(
          tx,
          row.id,
          {
            confirmHash: tokens.confirmHash,
            unsubscribeHash: tokens.unsubscribeHash,
            expiresAt: tokens.expiresAt,
            mailsOnDay: (state ? mailsToday(state, now) : 0) + 1,
            newConsent,
            consentSource,
          },
          now,
        );
        // Only the newest mail goes out: an older one still queued carries dead links.
        await supersedeQueued(tx, row.id);
        const mailJobId = await enqueueConfirmation(tx, row.id, row.email, payloadOf(tokens), now);
        const reminder = await queueReminder(tx, {
          subscriberId: row.id,
          email: row.email,
          mailboxHash,
          // The mailbox as it stands with this confirmation counted.
          mailbox: {
            mailDay: utcDay(now),
            mailsOnDay: mailsToday(mailbox, now) + 1,
            reminderAt: toDate(mailboxRow.reminder_at),
          },
          clientKey: input.clientKey ?? null,
          now,
          limits,
        });
        return { decision, mailJobId, reminder };
      });
    },

    async confirm(tokenHash: string, now: Date): Promise<ConfirmResult> {
      return db.transaction(async (tx) => {
        const [row] = await tx.query<{
          id: string;
          status: SubscriberStatus;
          confirm_expires_at: unknown;
          suppressed: boolean;
        }>(
          `select id, status, confirm_expires_at, suppressed
           from subscribers where confirm_token_hash = $1 for update`,
          [tokenHash],
        );
        if (!row) return "unknown";
        const decision = decideConfirm(
          {
            status: row.status,
            confirmExpiresAt: toDate(row.confirm_expires_at),
            suppressed: row.suppressed === true,
          },
          now,
        );
        if (decision === "confirm") {
          // The signup's consent becomes the confirmed one; an address that had refused mail
          // (a 5xx, a bounce) accepts it again now that a mail reached it.
          await markConfirmed(tx, row.id, now);
          // The welcome mail (the latest Effect), as durable as the confirmation: same transaction.
          const [confirmed] = await tx.query<{ email: string }>(
            `select email from subscribers where id = $1`,
            [row.id],
          );
          await enqueueWelcome(tx, row.id, confirmed.email, now);
          return "confirmed";
        }
        return decision;
      });
    },

    async unsubscribe(tokenHash: string, now: Date): Promise<UnsubscribeResult> {
      return db.transaction(async (tx) => {
        const [row] = await tx.query<{ id: string; status: SubscriberStatus; edition: string | null }>(
          // An Effect mail carries its own token (effect_unsubscribe_tokens), the confirmation mail
          // the subscriber's; an Effect's link also says which edition the reader left by.
          `select id, status,
             (select to_char(d.edition_date, 'YYYY-MM-DD') from effect_unsubscribe_tokens t
              join effect_deliveries d on d.id = t.delivery_id where t.token_hash = $1) as edition
           from subscribers
           where unsubscribe_token_hash = $1
              or id = (select subscriber_id from effect_unsubscribe_tokens where token_hash = $1)
           for update`,
          [tokenHash],
        );
        if (!row) return "unknown";
        if (decideUnsubscribe(row.status) === "already_unsubscribed") return "already_unsubscribed";
        await markUnsubscribed(tx, row.id, "link", now, row.edition);
        return "unsubscribed";
      });
    },

    /**
     * Addresses that signed up and never confirmed: deleted when they have no history; an
     * unsubscribed address whose new signup was never confirmed goes back to unsubscribed, its
     * unsubscribe kept (the purge never deletes one). Also the mailbox counters nobody reads.
     */
    async purgePending(now: Date, pendingAfterDays: number): Promise<{ subscribers: number }> {
      const cutoff = new Date(now.getTime() - pendingAfterDays * 86_400_000).toISOString();
      const deleted = await db.transaction((tx) => purgeNeverConfirmed(tx, new Date(cutoff), now));
      // A mailbox's counters live two days; its reminder's date as long as its signups may be pending.
      await db.query(
        `delete from mailbox_mail_limits where last_mail_at < $1::timestamptz
           and (reminder_at is null or reminder_at < $2::timestamptz)`,
        [new Date(now.getTime() - 2 * 86_400_000).toISOString(), cutoff],
      );
      return { subscribers: deleted };
    },
  };
}

/**
 * A reader forgotten: their mailbox's mail counters (kept under a plain SHA-256 of the mailbox)
 * go too. Returns how many rows (0 or 1).
 */
export async function forgetMailboxLimits(tx: SqlQueryable, email: string): Promise<number> {
  const rows = await tx.query(
    `delete from mailbox_mail_limits where mailbox_hash = $1 returning mailbox_hash`,
    [await sha256Hex(mailboxKey(email))],
  );
  return rows.length;
}

export type SubscriberStore = ReturnType<typeof createSubscriberStore>;
