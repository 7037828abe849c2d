/**
 * The `subscribers` table's one writer: every insert, update and delete of a reader's row is a
 * named statement here, run in the caller's transaction (`SqlQueryable`), so a change to what a
 * suppression or an unsubscribe records is made once. The subscriptions store (signup, confirm,
 * unsubscribe, purge), the mail queue (a mail sent, a reminder's link, suppression), the returned
 * mail's store (complaints, temporary bounces), the Effect's deliveries and an import of another
 * provider's list (`import.ts`, a batch a statement) all write through it;
 * `npm run check:writes` fails on a write to the table from anywhere else. It decides nothing:
 * `lifecycle.ts` and its callers do; and it imports nothing but the executor's types and the
 * contract's.
 */
import { utcDay } from "../contract/calendar-day.ts";
import { SIGNUP_SOURCE_FIELDS, type SignupSource } from "../contract/signup-source.ts";
import type { SqlQueryable } from "../db/sql-executor.ts";

/** Reasons are kept for the owner's export, at most this long. */
const REASON_CHARS = 1000;

/**
 * A new address's row, pending, with where it came from; null when the address (in any case)
 * already has one, whose source then stays as its first signup recorded it.
 */
export async function insertPending(
  tx: SqlQueryable,
  email: string,
  now: Date,
  consentSource: string | null,
  source: SignupSource | null,
): Promise<{ id: string; email: string } | null> {
  const [row] = await tx.query<{ id: string; email: string }>(
    `insert into subscribers (email, status, signed_up_at, pending_consent_source, pending_consent_at, updated_at,
       ${SIGNUP_SOURCE_FIELDS.join(", ")})
     values ($1, 'pending', $2::timestamptz, $3, $2::timestamptz, $2::timestamptz, $4, $5, $6, $7, $8, $9)
     on conflict ((lower(email))) do nothing
     returning id, email`,
    [
      email,
      now.toISOString(),
      consentSource,
      ...SIGNUP_SOURCE_FIELDS.map((field) => source?.[field] ?? null),
    ],
  );
  return row ?? null;
}

/** An unsubscribed address signed up again, no mail due yet: pending, with this signup's consent. */
export async function markPendingAgain(
  tx: SqlQueryable,
  id: string,
  now: Date,
  consentSource: string | null,
) {
  await tx.query(
    `update subscribers set status = 'pending', signed_up_at = $2::timestamptz, pending_consent_source = $3,
       pending_consent_at = $2::timestamptz, updated_at = $2::timestamptz where id = $1`,
    [id, now.toISOString(), consentSource],
  );
}

export interface ConfirmationMailRecord {
  confirmHash: string;
  unsubscribeHash: string;
  expiresAt: Date;
  /** Confirmation mails to this address today, this one counted. */
  mailsOnDay: number;
  /** This signup's consent replaces the pending one (a resubscribe, a bounced reader's reconfirm). */
  newConsent: boolean;
  consentSource: string | null;
}

/**
 * A confirmation mail queued: the new link's token hashes (the previous mail's links stop
 * working), the day's count, and the consent when it is new. A confirmed reader stays confirmed.
 */
export async function recordConfirmationMail(
  tx: SqlQueryable,
  id: string,
  record: ConfirmationMailRecord,
  now: Date,
): Promise<void> {
  const nowIso = now.toISOString();
  await tx.query(
    `update subscribers set status = case when status = 'confirmed' then 'confirmed' else 'pending' end, confirm_token_hash = $2, confirm_expires_at = $3::timestamptz,
       unsubscribe_token_hash = $4, mail_queued_at = $5::timestamptz, mail_day = $6::date, mails_on_day = $7,
       signed_up_at = case when $8 then $5::timestamptz else signed_up_at end,
       pending_consent_source = case when $8 then $9 else pending_consent_source end,
       pending_consent_at = case when $8 then $5::timestamptz else pending_consent_at end,
       updated_at = $5::timestamptz
     where id = $1`,
    [
      id,
      record.confirmHash,
      record.expiresAt.toISOString(),
      record.unsubscribeHash,
      nowIso,
      utcDay(now),
      record.mailsOnDay,
      record.newConsent,
      record.consentSource,
    ],
  );
}

/**
 * Confirmed: the signup's consent becomes the confirmed one, and an address that had refused mail
 * (a 5xx, a bounce) accepts it again now that a mail reached it.
 */
export async function markConfirmed(tx: SqlQueryable, id: string, now: Date): Promise<void> {
  await tx.query(
    `update subscribers set status = 'confirmed', confirmed_at = $2::timestamptz,
       consent_source = case when pending_consent_at is null then consent_source else pending_consent_source end,
       consent_at = coalesce(pending_consent_at, consent_at),
       pending_consent_source = null, pending_consent_at = null,
       undeliverable_at = null, undeliverable_reason = null, soft_bounce_days = 0, last_soft_bounce_day = null,
       updated_at = $2::timestamptz
     where id = $1`,
    [id, now.toISOString()],
  );
}

/**
 * Unsubscribed by the reader's link, or by a complaint. A reader already unsubscribed keeps the
 * time and reason of the first; a complaint's time is recorded either way. `edition` is the Effect
 * (YYYY-MM-DD) whose own link was used, null for the confirmation mail's link or a complaint.
 */
export async function markUnsubscribed(
  tx: SqlQueryable,
  id: string,
  reason: "link" | "complaint",
  now: Date,
  edition: string | null = null,
): Promise<void> {
  await tx.query(
    `update subscribers set status = 'unsubscribed',
       unsubscribed_at = case when status = 'unsubscribed' then unsubscribed_at else $2::timestamptz end,
       unsubscribe_reason = case when status = 'unsubscribed' then unsubscribe_reason else $3 end,
       unsubscribe_edition_date = case when status = 'unsubscribed' then unsubscribe_edition_date else $4::date end,
       complained_at = case when $3 = 'complaint' then $2::timestamptz else complained_at end,
       updated_at = $2::timestamptz
     where id = $1`,
    [id, now.toISOString(), reason, edition],
  );
}

/**
 * Addresses that signed up before `cutoff` and never confirmed: deleted when they have no
 * history; an unsubscribed address whose new signup was never confirmed goes back to
 * unsubscribed, its unsubscribe kept (the purge never deletes one). Returns how many were deleted.
 */
export async function purgeNeverConfirmed(tx: SqlQueryable, cutoff: Date, now: Date): Promise<number> {
  const deleted = await tx.query(
    `delete from subscribers where status = 'pending' and unsubscribed_at is null and confirmed_at is null
       and coalesce(mail_queued_at, signed_up_at) < $1::timestamptz returning id`,
    [cutoff.toISOString()],
  );
  await tx.query(
    `update subscribers set status = 'unsubscribed', pending_consent_source = null, pending_consent_at = null,
       confirm_token_hash = null, confirm_expires_at = null, updated_at = $2::timestamptz
     where status = 'pending' and unsubscribed_at is not null
       and coalesce(mail_queued_at, signed_up_at) < $1::timestamptz`,
    [cutoff.toISOString(), now.toISOString()],
  );
  return deleted.length;
}

/** A mail job went out: the confirmation's send time, or the reminder's (one per signup). */
export async function recordMailSent(tx: SqlQueryable, id: string, jobId: string, now: Date): Promise<void> {
  await tx.query(
    `update subscribers set
       mail_sent_at = case when j.kind = 'confirmation' then $2::timestamptz else mail_sent_at end,
       reminded_at = case when j.kind = 'reminder' then $2::timestamptz else reminded_at end
     from mail_jobs j where subscribers.id = $1 and j.id = $3`,
    [id, now.toISOString(), jobId],
  );
}

/**
 * A reminder's fresh link for a signup still waiting for its confirmation, mail not refused since:
 * new token hashes (the earlier links stop working). False when there is nothing to remind of.
 */
export async function renewPendingTokens(
  tx: SqlQueryable,
  id: string,
  tokens: { confirmHash: string; unsubscribeHash: string; expiresAt: Date },
  now: Date,
): Promise<boolean> {
  const rows = await tx.query(
    `update subscribers set confirm_token_hash = $2, unsubscribe_token_hash = $3, confirm_expires_at = $4::timestamptz,
       updated_at = $5::timestamptz
     where id = $1 and status = 'pending' and undeliverable_at is null
     returning id`,
    [id, tokens.confirmHash, tokens.unsubscribeHash, tokens.expiresAt.toISOString(), now.toISOString()],
  );
  return rows.length === 1;
}

/**
 * Readers whose mail was refused for good, each with its reason (the refusal, the bounce): no
 * mail goes to them until they confirm again (the table's generated `suppressed` column says so
 * until `markConfirmed`). Only the row; the mail queue's `suppressReaders`
 * also abandons what waits for them, and is what callers use.
 */
export async function markUndeliverable(
  tx: SqlQueryable,
  readers: { id: string; reason: string }[],
  now: Date,
): Promise<void> {
  if (readers.length === 0) return;
  await tx.query(
    `update subscribers s set undeliverable_at = $3::timestamptz, undeliverable_reason = r.reason,
       updated_at = $3::timestamptz
     from unnest($1::uuid[], $2::text[]) as r(id, reason)
     where s.id = r.id`,
    [
      readers.map((reader) => reader.id),
      readers.map((reader) => reader.reason.slice(0, REASON_CHARS)),
      now.toISOString(),
    ],
  );
}

/** A temporary bounce counted: `days` in a row, the last on `day` (YYYY-MM-DD). */
export async function recordSoftBounceDays(
  tx: SqlQueryable,
  id: string,
  days: number,
  day: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `update subscribers set soft_bounce_days = $2, last_soft_bounce_day = $3::date, updated_at = $4::timestamptz where id = $1`,
    [id, days, day, now.toISOString()],
  );
}

/**
 * A reader forgotten (`npm run subscribers -- forget`): the row goes, and with it, by the foreign
 * keys, its mail jobs, its Effect deliveries and their unsubscribe tokens; its mail events lose
 * their link to it. False when there was no such row.
 */
export async function deleteSubscriber(tx: SqlQueryable, id: string): Promise<boolean> {
  const rows = await tx.query(`delete from subscribers where id = $1 returning id`, [id]);
  return rows.length === 1;
}

/**
 * What an import keeps as its readers' consent evidence: `import:PROVIDER` (in `consent_source`),
 * the base name of the file and the time of the import (migration 20261128300000).
 */
export interface ImportEvidence {
  consentSource: string;
  fileName: string;
  importedAt: Date;
}

/** A new address an import brings, as its row starts. */
export interface ImportedRow {
  email: string;
  status: "confirmed" | "unsubscribed";
  /** The original opt-in (confirmed: the import's time when the export gave none). */
  optedInAt: Date | null;
  /** Unsubscribed: when, and why (`import:PROVIDER`, or `complaint`). */
  unsubscribedAt: Date | null;
  unsubscribeReason: string | null;
  complainedAt: Date | null;
}

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/**
 * New addresses from an import, in one statement: confirmed with their original opt-in as the
 * consent, or unsubscribed as the export said. An address that has a row by now (a signup in
 * between) is left alone; only the rows made are returned.
 */
export async function insertImported(
  tx: SqlQueryable,
  rows: ImportedRow[],
  evidence: ImportEvidence,
): Promise<{ id: string; email: string }[]> {
  if (rows.length === 0) return [];
  return tx.query<{ id: string; email: string }>(
    `insert into subscribers (email, status, signed_up_at, confirmed_at, consent_source, consent_at,
       unsubscribed_at, unsubscribe_reason, complained_at, imported_from, imported_at, updated_at)
     select r.email, r.status, coalesce(r.opted_in_at, r.unsubscribed_at, $9::timestamptz), r.opted_in_at, $7,
       r.opted_in_at, r.unsubscribed_at, r.reason, r.complained_at, $8, $9::timestamptz, $9::timestamptz
     from unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::timestamptz[])
       as r(email, status, opted_in_at, unsubscribed_at, reason, complained_at)
     on conflict ((lower(email))) do nothing
     returning id, email`,
    [
      rows.map((row) => row.email),
      rows.map((row) => row.status),
      rows.map((row) => isoOrNull(row.optedInAt)),
      rows.map((row) => isoOrNull(row.unsubscribedAt)),
      rows.map((row) => row.unsubscribeReason),
      rows.map((row) => isoOrNull(row.complainedAt)),
      evidence.consentSource,
      evidence.fileName,
      evidence.importedAt.toISOString(),
    ],
  );
}

/**
 * Signups still waiting for their own confirmation that an import names as opted in: confirmed,
 * with the import's consent (their own signup's stays beside it, pending). Never one that was
 * unsubscribed before or is suppressed. Returns the rows confirmed.
 */
export async function confirmImported(
  tx: SqlQueryable,
  readers: { id: string; optedInAt: Date }[],
  evidence: ImportEvidence,
): Promise<{ id: string; email: string }[]> {
  if (readers.length === 0) return [];
  return tx.query<{ id: string; email: string }>(
    `update subscribers s set status = 'confirmed', confirmed_at = r.opted_in_at, consent_source = $3,
       consent_at = r.opted_in_at, imported_from = $4, imported_at = $5::timestamptz, updated_at = $5::timestamptz
     from unnest($1::uuid[], $2::timestamptz[]) as r(id, opted_in_at)
     where s.id = r.id and s.status = 'pending' and s.unsubscribed_at is null and not s.suppressed
     returning s.id, s.email`,
    [
      readers.map((reader) => reader.id),
      readers.map((reader) => reader.optedInAt.toISOString()),
      evidence.consentSource,
      evidence.fileName,
      evidence.importedAt.toISOString(),
    ],
  );
}

/**
 * Confirmed readers an import unsubscribes (their consent came from an earlier import, and this
 * export says they left): when and why, as the export says; a complaint's time too.
 */
export async function markUnsubscribedByImport(
  tx: SqlQueryable,
  readers: { id: string; at: Date; reason: string; complaint: boolean }[],
  now: Date,
): Promise<void> {
  if (readers.length === 0) return;
  await tx.query(
    `update subscribers s set status = 'unsubscribed', unsubscribed_at = r.at, unsubscribe_reason = r.reason,
       complained_at = case when r.complaint then r.at else s.complained_at end, updated_at = $5::timestamptz
     from unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::boolean[]) as r(id, at, reason, complaint)
     where s.id = r.id and s.status = 'confirmed'`,
    [
      readers.map((reader) => reader.id),
      readers.map((reader) => reader.at.toISOString()),
      readers.map((reader) => reader.reason.slice(0, REASON_CHARS)),
      readers.map((reader) => reader.complaint),
      now.toISOString(),
    ],
  );
}
