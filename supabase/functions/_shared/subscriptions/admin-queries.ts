/**
 * The operator's read-only view of the list: counts by status and the export with each
 * address's consent record (an import's too) and where it came from (`npm run subscribers`). Nothing here changes
 * a row.
 */
import { SIGNUP_SOURCE_FIELDS, type SignupSource } from "../contract/signup-source.ts";
import { type SqlExecutor, toDate } from "../db/sql-executor.ts";
import type { SubscriberStatus } from "./lifecycle.ts";

export const SUBSCRIBER_STATUSES: readonly SubscriberStatus[] = ["pending", "confirmed", "unsubscribed"];

/**
 * One address as the export shows it; its `SignupSource` fields say where it first signed up
 * (`contract/signup-source.ts`): the form, its page, the referring site's host and the landing
 * address's `utm_*`, each null where it was not known.
 */
export interface ExportRow extends SignupSource {
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
  /** Why the address left the list: `link` (its unsubscribe link or one-click header) or `complaint`. */
  unsubscribe_reason: string | null;
  /** When it reported a mail as spam (mail-events). */
  complained_at: Date | null;
  /** No mail goes to it since then (a bounce, an SMTP 5xx), until it confirms a new signup. */
  suppressed_at: Date | null;
  suppressed_reason: string | null;
  /** Brought by an import (`consent_source` says which provider): the file's base name, and when. */
  imported_from: string | null;
  imported_at: Date | null;
}

/** The list's health: addresses no mail goes to because of a bounce, and those that complained. */
export interface ListHealth {
  suppressed: number;
  complained: number;
}

const sourceOf = (row: Record<string, unknown>): SignupSource =>
  Object.fromEntries(
    SIGNUP_SOURCE_FIELDS.map((field) => [field, row[field] === null ? null : String(row[field])]),
  ) as SignupSource;

export function createAdminQueries(db: SqlExecutor) {
  return {
    async countByStatus(): Promise<Record<SubscriberStatus, number>> {
      const rows = await db.query<{ status: SubscriberStatus; count: number }>(
        `select status, count(*)::int as count from subscribers group by status`,
      );
      const counts = Object.fromEntries(SUBSCRIBER_STATUSES.map((status) => [status, 0])) as Record<
        SubscriberStatus,
        number
      >;
      for (const row of rows) counts[row.status] = Number(row.count);
      return counts;
    },

    async health(): Promise<ListHealth> {
      const [row] = await db.query<{ suppressed: number; complained: number }>(
        `select count(*) filter (where suppressed)::int as suppressed,
           count(*) filter (where status = 'unsubscribed' and unsubscribe_reason = 'complaint')::int as complained
         from subscribers`,
      );
      return { suppressed: Number(row.suppressed), complained: Number(row.complained) };
    },

    async list(status?: SubscriberStatus): Promise<ExportRow[]> {
      const rows = await db.query<Record<keyof ExportRow, unknown>>(
        `select email, status, signed_up_at, confirmed_at, unsubscribed_at, consent_source, consent_at,
           pending_consent_source, pending_consent_at, unsubscribe_reason, complained_at,
           case when suppressed then undeliverable_at end as suppressed_at,
           case when suppressed then undeliverable_reason end as suppressed_reason, imported_from, imported_at,
           ${SIGNUP_SOURCE_FIELDS.join(", ")}
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
        unsubscribe_reason: row.unsubscribe_reason === null ? null : String(row.unsubscribe_reason),
        complained_at: toDate(row.complained_at),
        suppressed_at: toDate(row.suppressed_at),
        suppressed_reason: row.suppressed_reason === null ? null : String(row.suppressed_reason),
        imported_from: row.imported_from === null ? null : String(row.imported_from),
        imported_at: toDate(row.imported_at),
        ...sourceOf(row),
      }));
    },
  };
}

export type AdminQueries = ReturnType<typeof createAdminQueries>;
