/**
 * The providers' subscriber exports that `npm run subscribers -- import FILE --from PROVIDER`
 * reads: which columns each file has (the header must have them, so a file from another provider
 * is refused), and what a row says of its reader for the core's import (subscriptions/import.ts):
 * subscribed, unsubscribed, complained or bounced, with its opt-in and leaving times; or why the
 * row is skipped (never opted in there). Columns are matched in any letter case. No other column
 * is read: no name, no IP address (Mailchimp's OPTIN_IP and CONFIRM_IP, Buttondown's), no
 * location, no payment detail.
 *
 * Times: ISO 8601 with its zone; a time without a zone (Mailchimp's `2024-03-01 09:30:00`) is UTC;
 * a date alone is its midnight UTC. A time that cannot be read counts as unknown (the import's
 * time stands in for an opt-in).
 */
import type { ImportKind } from "../supabase/functions/_shared/hosts.ts";

export const PROVIDERS = ["mailchimp", "substack", "kit", "buttondown", "ghost"] as const;
export type Provider = (typeof PROVIDERS)[number];
export const isProvider = (value: unknown): value is Provider => PROVIDERS.includes(value as Provider);

/** A file that is not the provider's export (or one the import must not take). */
export class ImportFormatError extends Error {}

/** One data row, its cells by column name (any case); a missing column reads as "". */
export interface ExportRow {
  get(...columns: string[]): string;
}

/** What a row says of its reader; `invalid` when a status cell is not one the provider writes. */
export type RowReading =
  | { kind: ImportKind; optedInAt: Date | null; leftAt: Date | null; note?: string }
  | { skip: string }
  | { invalid: string };

export interface ExportFormat {
  /** The provider's name as the owner reads it. */
  title: string;
  /** The column holding the address (the first present). */
  email: string[];
  /** Columns the header must have, each one of its names: they tell this provider's file from another's. */
  required: string[][];
  /** What the file as a whole is, from its name and header; may refuse it. */
  file?(fileName: string, header: Set<string>): void;
  read(row: ExportRow, header: Set<string>): RowReading;
}

const ZONED = /(?:Z|[+-]\d\d:?\d\d)$/i;
const ISO_LIKE =
  /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?(?:\s*(?:Z|UTC|GMT|[+-]\d\d:?\d\d))?$/i;

/** A time from an export, or null when there is none or it cannot be read. */
export function exportTime(value: string): Date | null {
  const text = value.trim();
  if (!ISO_LIKE.test(text)) return null;
  const normal = text.replace(/\s*(?:UTC|GMT)$/i, "Z").replace(" ", "T");
  const date = new Date(
    normal.length === 10 ? `${normal}T00:00:00Z` : ZONED.test(normal) ? normal : `${normal}Z`,
  );
  return Number.isNaN(date.getTime()) ? null : date;
}

const yes = (value: string) => ["true", "yes", "1"].includes(value.trim().toLowerCase());

const subscribed = (optedInAt: Date | null): RowReading => ({ kind: "subscribed", optedInAt, leftAt: null });

/**
 * A provider whose export says each reader's state in one column (Kit, Buttondown): each value the
 * provider writes is a kind, or null for one who never opted in there; another value is an error
 * of its row. A bounce's note is the value itself ("undeliverable at Buttondown").
 */
function statusColumnFormat(spec: {
  title: string;
  email: string[];
  status: string[];
  statuses: Record<string, ImportKind | null>;
  created: string[];
  left?: string[];
}): ExportFormat {
  return {
    title: spec.title,
    email: spec.email,
    required: [spec.email, spec.status],
    read(row) {
      const value = row.get(...spec.status).toLowerCase();
      if (!(value in spec.statuses))
        return { invalid: `${spec.status[0]} "${value}" is not one ${spec.title} writes` };
      const kind = spec.statuses[value];
      if (!kind) return { skip: `never confirmed there (${spec.title}: ${value})` };
      return {
        kind,
        optedInAt: exportTime(row.get(...spec.created)),
        leftAt: spec.left ? exportTime(row.get(...spec.left)) : null,
        ...(kind === "bounced" ? { note: `${value} at ${spec.title}` } : {}),
      };
    },
  };
}

/**
 * Mailchimp: the audience export (Audience > All contacts > Export Audience) is a ZIP with one CSV
 * per status, https://mailchimp.com/help/view-export-contacts/ (and the account export's audiences,
 * https://mailchimp.com/developer/marketing/docs/account-exports/): subscribed, unsubscribed,
 * non-subscribed and cleaned (addresses that hard-bounced or kept soft-bouncing). Import the
 * subscribed, unsubscribed and cleaned files, each as its own run; the file's kind is read from its
 * header (the columns as in Ghost's Mailchimp importer's samples, github.com/TryGhost/migrate,
 * packages/mg-mailchimp-members).
 * - `Email Address`: the address.
 * - `CONFIRM_TIME` (the double opt-in's confirmation), else `OPTIN_TIME`: the opt-in.
 * - `UNSUB_TIME` (unsubscribed file): left then; `UNSUB_REASON` naming spam or abuse is a complaint.
 * - `CLEAN_TIME` (cleaned file): bounced, suppressed.
 * - `LAST_CHANGED`, the merge fields, `OPTIN_IP`, `CONFIRM_IP`, location, `LEID`, `EUID`, tags: not read.
 * The non-subscribed file holds contacts who never opted in: refused by its name.
 */
const mailchimp: ExportFormat = {
  title: "Mailchimp",
  email: ["Email Address"],
  required: [["Email Address"], ["CONFIRM_TIME", "OPTIN_TIME"]],
  file(fileName) {
    if (/^non[-_ ]?subscribed/i.test(fileName))
      throw new ImportFormatError(
        `${fileName} is Mailchimp's non-subscribed contacts: they never opted in to the list, so they are not imported. Import the subscribed, unsubscribed and cleaned files.`,
      );
  },
  read(row, header) {
    const optedInAt = exportTime(row.get("CONFIRM_TIME")) ?? exportTime(row.get("OPTIN_TIME"));
    if (header.has("clean_time"))
      return {
        kind: "bounced",
        optedInAt,
        leftAt: exportTime(row.get("CLEAN_TIME")),
        note: "cleaned by Mailchimp",
      };
    if (header.has("unsub_time")) {
      const complaint = /spam|abuse/i.test(row.get("UNSUB_REASON"));
      return {
        kind: complaint ? "complained" : "unsubscribed",
        optedInAt,
        leftAt: exportTime(row.get("UNSUB_TIME")),
      };
    }
    return subscribed(optedInAt);
  },
};

/**
 * Substack: Settings > Exports > "Create new export" gives a ZIP whose `email_list.*.csv` holds the
 * subscribers. Substack's help pages (support.substack.com) describe the export but name no
 * columns; these are the file's own, as Ghost's Substack importer reads them and its samples show
 * (github.com/TryGhost/migrate, packages/mg-substack-members-csv):
 * - `email`: the address; one at `@deletion-request.substack.com` is a reader's erasure request,
 *   skipped.
 * - `email_disabled`: `true` when the reader stopped the emails: unsubscribed.
 * - `created_at`: the signup, the opt-in.
 * - `active_subscription`, `expiry`, `plan`, `type`, Stripe's ids: payment, not read.
 */
const substack: ExportFormat = {
  title: "Substack",
  email: ["email"],
  required: [["email"], ["email_disabled"]],
  read(row) {
    if (/@deletion-request\.substack\.com$/i.test(row.get("email")))
      return { skip: "erasure requests (Substack)" };
    const optedInAt = exportTime(row.get("created_at"));
    if (yes(row.get("email_disabled"))) return { kind: "unsubscribed", optedInAt, leftAt: null };
    return subscribed(optedInAt);
  },
};

/**
 * Kit (ConvertKit): Subscribers > select all > Export, a CSV of the subscribers with the fields of
 * Kit's subscriber object and its states,
 * https://developers.kit.com/api-reference/subscribers/list-subscribers (`email_address`, `state`:
 * active, inactive, bounced, complained, cancelled; `created_at`). Export "All subscribers" so the
 * cancelled, bounced and complained come along.
 * - `email_address` (or `email`): the address.
 * - `state` (or `status`): `active` subscribed; `inactive` never confirmed there, skipped;
 *   `cancelled` unsubscribed; `bounced` suppressed; `complained` a complaint.
 * - `created_at`: the opt-in.
 * - `first_name`, custom fields, tags: not read.
 */
const KIT_STATES: Record<string, ImportKind | null> = {
  active: "subscribed",
  inactive: null,
  cancelled: "unsubscribed",
  bounced: "bounced",
  complained: "complained",
};
const kit = statusColumnFormat({
  title: "Kit",
  email: ["email_address", "email"],
  status: ["state", "status"],
  statuses: KIT_STATES,
  created: ["created_at"],
});

/**
 * Buttondown: Subscribers > Export (or Settings > Exports > Subscribers), a CSV of the subscriber
 * objects, https://docs.buttondown.com/api-reference/subscribers : `email`, `creation_date`,
 * `subscriber_type`, whose values are documented with the API
 * (the SubscriberType enum of github.com/buttondown/openapi).
 * - `email` (or `email_address`): the address.
 * - `subscriber_type` (or `type`): `regular`, `premium`, `trialed`, `unpaid`, `gifted`, `churning`,
 *   `churned`, `paused` and `past_due` receive the newsletter, subscribed; `unactivated` never
 *   confirmed, skipped; `unsubscribed` and `removed` (by the newsletter) unsubscribed;
 *   `complained` a complaint; `undeliverable`, `spammy` and `malicious` suppressed.
 * - `creation_date`: the opt-in; `unsubscription_date`, where the file has it, when they left.
 * - `notes`, `metadata`, `tags`, `referrer_url`, `utm_*`, `ip_address`: not read.
 */
const BUTTONDOWN_TYPES: Record<string, ImportKind | null> = {
  regular: "subscribed",
  premium: "subscribed",
  trialed: "subscribed",
  unpaid: "subscribed",
  gifted: "subscribed",
  churning: "subscribed",
  churned: "subscribed",
  paused: "subscribed",
  past_due: "subscribed",
  unactivated: null,
  unsubscribed: "unsubscribed",
  removed: "unsubscribed",
  complained: "complained",
  undeliverable: "bounced",
  spammy: "bounced",
  malicious: "bounced",
};
const buttondown = statusColumnFormat({
  title: "Buttondown",
  email: ["email", "email_address"],
  status: ["subscriber_type", "type"],
  statuses: BUTTONDOWN_TYPES,
  created: ["creation_date", "created_at"],
  left: ["unsubscription_date"],
});

/**
 * Ghost: Members > Export, the members CSV (`id,email,name,note,subscribed_to_emails,
 * complimentary_plan,stripe_customer_id,created_at,deleted_at,labels,tiers`, as Ghost's own importer
 * tests it: github.com/TryGhost/Ghost, ghost/members-importer/test/fixtures/member-csv-export.csv),
 * whose fields its import documents, https://ghost.org/help/import-members/ . The export does not
 * say which addresses bounced.
 * - `email`: the address.
 * - `subscribed_to_emails`: `false` unsubscribed (the member stays, without the newsletter).
 * - `email_disabled`, where the file has it: `true` when Ghost stopped mailing the address after a
 *   permanent bounce or a spam complaint: suppressed.
 * - `deleted_at`: a deleted member, unsubscribed then.
 * - `created_at`: the opt-in.
 * - `name`, `note`, `labels`, `tiers`, `complimentary_plan`, `stripe_customer_id`: not read.
 */
const ghost: ExportFormat = {
  title: "Ghost",
  email: ["email"],
  required: [["email"], ["subscribed_to_emails"]],
  read(row) {
    const optedInAt = exportTime(row.get("created_at"));
    const deletedAt = exportTime(row.get("deleted_at"));
    if (deletedAt) return { kind: "unsubscribed", optedInAt, leftAt: deletedAt };
    if (yes(row.get("email_disabled")))
      return {
        kind: "bounced",
        optedInAt,
        leftAt: null,
        note: "email disabled by Ghost (a bounce or a complaint)",
      };
    if (!yes(row.get("subscribed_to_emails"))) return { kind: "unsubscribed", optedInAt, leftAt: null };
    return subscribed(optedInAt);
  },
};

export const EXPORT_FORMATS: Record<Provider, ExportFormat> = { mailchimp, substack, kit, buttondown, ghost };
