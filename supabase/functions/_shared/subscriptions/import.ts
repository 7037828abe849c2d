/**
 * Readers brought from another provider (`npm run subscribers -- import FILE --from PROVIDER`; the
 * file is read by `server/subscriber-import.ts`): each address the export names, already checked,
 * with what the export says of it (subscribed, unsubscribed, complained, bounced) and its times.
 *
 * - A new address is stored confirmed, its consent `import:PROVIDER` at its original opt-in time
 *   (the import's time when the export has none), with the file's name and the import's time; or,
 *   when the export says it left, unsubscribed (a complaint as a complaint), or confirmed and
 *   suppressed when its mail was refused there: never mailed, and never made confirmed again by an
 *   import, which changes no unsubscribed or suppressed reader.
 * - An address already on the list keeps its row: its own consent, its unsubscribe, its bounce.
 *   Two exceptions, both the reader's own word in the export: a signup still waiting for its
 *   confirmation that the export names as opted in is confirmed (the import's consent beside its
 *   own), and a reader whose consent came from an earlier import leaves when this export says so.
 * - A forgotten address (readers-rights.ts, its keyed hash) is skipped and counted, not stored.
 * - Duplicates (any letter case) are one reader: the strictest word wins (a complaint, a bounce,
 *   an unsubscribe, then a subscription), with the earliest opt-in.
 * - No mail is queued unless asked: then each reader this import made confirmed gets the welcome
 *   mail through the mail queue, and no confirmation mail.
 *
 * Batches of a few thousand addresses, each one transaction of a few statements (unnest arrays),
 * so a list of 100,000 takes seconds; running the same file again changes nothing.
 */
import type { SqlExecutor, SqlQueryable } from "../db/sql-executor.ts";
import { abandonQueuedMail, enqueueWelcomes, suppressReaders } from "../mail/mail-queue.ts";
import type { SubscriberStatus } from "./lifecycle.ts";
import { createReadersRights } from "./readers-rights.ts";
import {
  confirmImported,
  type ImportEvidence,
  type ImportedRow,
  insertImported,
  markUnsubscribedByImport,
} from "./subscriber-rows.ts";

/** What an export says of a reader, from the mildest word to the strictest. */
export const IMPORT_KINDS = ["subscribed", "unsubscribed", "bounced", "complained"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export interface ImportReader {
  /** Checked and normalised (`checkEmail`). */
  email: string;
  kind: ImportKind;
  /** When the reader opted in (the provider's confirm, opt-in or creation time), if the export says. */
  optedInAt: Date | null;
  /** When the reader left, or was cleaned, if the export says. */
  leftAt: Date | null;
  /** A bounce's reason in the provider's words ("cleaned by Mailchimp"), for the suppression. */
  note?: string;
}

export interface ImportOptions {
  /** The provider's name, lower case: the consent says `import:PROVIDER`. */
  provider: string;
  /** The file's base name, kept with each reader the import stores. */
  fileName: string;
  now: Date;
  /** Queue the welcome mail for each reader the import makes confirmed. */
  welcome: boolean;
  /** Addresses per transaction. */
  batchSize?: number;
}

export interface ImportCounts {
  /** Distinct addresses, duplicates merged. */
  addresses: number;
  /** Rows that named an address already named above them in the file. */
  duplicates: number;
  /** Made confirmed: new readers, and the signups waiting for their confirmation among them. */
  imported: number;
  confirmedWaiting: number;
  /** New addresses stored as never to be mailed: unsubscribed, complained or bounced there. */
  suppressed: number;
  /** Readers of an earlier import whom this export says left (unsubscribed or suppressed now). */
  optedOut: number;
  /** On the list already, kept as they were. */
  already: number;
  /** Skipped: their keyed hash says they asked to be forgotten. */
  forgotten: number;
  /** Welcome mails queued. */
  welcomes: number;
}

/** An address's row as the import reads it. */
export interface ExistingReader {
  status: SubscriberStatus;
  suppressed: boolean;
  /** Unsubscribed once (a pending row with this waits for a new confirmation after leaving). */
  leftBefore: boolean;
  /** Its confirmed consent came from an import. */
  consentFromImport: boolean;
}

export type ImportAction = "insert" | "confirm" | "unsubscribe" | "suppress" | "keep";

/** What the import does with one address, by what the list holds and what the export says. */
export function decideImport(existing: ExistingReader | null, kind: ImportKind): ImportAction {
  if (!existing) return "insert";
  if (kind === "subscribed") {
    const waiting = existing.status === "pending" && !existing.leftBefore && !existing.suppressed;
    return waiting ? "confirm" : "keep";
  }
  // Only a consent an import gave yields to an export's word; the reader's own stands.
  if (existing.status !== "confirmed" || !existing.consentFromImport) return "keep";
  if (kind === "bounced") return existing.suppressed ? "keep" : "suppress";
  return "unsubscribe";
}

const rank = (kind: ImportKind) => IMPORT_KINDS.indexOf(kind);
const earlier = (a: Date | null, b: Date | null) => (a && b ? (a <= b ? a : b) : (a ?? b));

/** One reader per address (any letter case): the strictest word, the earliest opt-in. */
export function mergeReaders(readers: ImportReader[]): { merged: ImportReader[]; duplicates: number } {
  const byKey = new Map<string, ImportReader>();
  for (const reader of readers) {
    const key = reader.email.toLowerCase();
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, reader);
      continue;
    }
    const winner = rank(reader.kind) > rank(seen.kind) ? reader : seen;
    byKey.set(key, { ...winner, optedInAt: earlier(seen.optedInAt, reader.optedInAt) });
  }
  return { merged: [...byKey.values()], duplicates: readers.length - byKey.size };
}

/** A time the export gives, never later than the import (a clock gone wrong there). */
const notAfter = (date: Date | null, now: Date) => (date && date > now ? now : date);

const BATCH_SIZE = 2000;

export function createSubscriberImport(db: SqlExecutor, forgetKey: string) {
  const rights = createReadersRights(db, forgetKey);

  async function importBatch(
    tx: SqlQueryable,
    batch: ImportReader[],
    options: ImportOptions,
    counts: ImportCounts,
  ): Promise<void> {
    const { now } = options;
    const evidence: ImportEvidence = {
      consentSource: `import:${options.provider}`,
      fileName: options.fileName,
      importedAt: now,
    };
    const forgotten = await rights.forgottenAmong(
      tx,
      batch.map((reader) => reader.email),
    );
    counts.forgotten += forgotten.size;
    const rows = await tx.query<{
      id: string;
      key: string;
      status: SubscriberStatus;
      suppressed: boolean;
      left_before: boolean;
      consent_from_import: boolean;
    }>(
      // Not locked: every write below says in its own SQL which rows it may change (a pending one,
      // a confirmed one), so a signup or a click in between wins, as it should.
      `select id, lower(email) as key, status, suppressed, unsubscribed_at is not null as left_before,
         coalesce(consent_source like 'import:%', false) as consent_from_import
       from subscribers where lower(email) = any($1::text[])`,
      [batch.map((reader) => reader.email.toLowerCase())],
    );
    const existing = new Map(rows.map((row) => [row.key, row]));

    const inserts: ImportedRow[] = [];
    /** The new rows never to be mailed, by address: a bounce's suppression reason, or null (left). */
    const neverMailed = new Map<string, string | null>();
    const toConfirm: { id: string; optedInAt: Date }[] = [];
    const toUnsubscribe: { id: string; at: Date; reason: string; complaint: boolean }[] = [];
    const toSuppress: { id: string; reason: string }[] = [];
    const suppressionReason = (reader: ImportReader) =>
      `${reader.note ?? "bounced"} (${evidence.consentSource}, ${options.fileName})`;
    const leavingReason = (reader: ImportReader) =>
      reader.kind === "complained" ? "complaint" : evidence.consentSource;
    for (const reader of batch) {
      if (forgotten.has(reader.email)) continue;
      const key = reader.email.toLowerCase();
      const row = existing.get(key);
      const optedInAt = notAfter(reader.optedInAt, now);
      const leftAt = notAfter(reader.leftAt, now) ?? now;
      const action = decideImport(
        row
          ? {
              status: row.status,
              suppressed: row.suppressed === true,
              leftBefore: row.left_before === true,
              consentFromImport: row.consent_from_import === true,
            }
          : null,
        reader.kind,
      );
      if (action === "insert") {
        const left = reader.kind === "unsubscribed" || reader.kind === "complained";
        if (reader.kind !== "subscribed") neverMailed.set(key, left ? null : suppressionReason(reader));
        inserts.push({
          email: reader.email,
          status: left ? "unsubscribed" : "confirmed",
          // A reader who left without a known opt-in is not said to have confirmed at the import.
          optedInAt: left ? optedInAt : (optedInAt ?? now),
          unsubscribedAt: left ? leftAt : null,
          unsubscribeReason: left ? leavingReason(reader) : null,
          complainedAt: reader.kind === "complained" ? leftAt : null,
        });
      } else if (!row || action === "keep") counts.already++;
      else if (action === "confirm") toConfirm.push({ id: row.id, optedInAt: optedInAt ?? now });
      else if (action === "suppress") toSuppress.push({ id: row.id, reason: suppressionReason(reader) });
      else
        toUnsubscribe.push({
          id: row.id,
          at: leftAt,
          reason: leavingReason(reader),
          complaint: reader.kind === "complained",
        });
    }
    counts.optedOut += toSuppress.length + toUnsubscribe.length;

    const inserted = await insertImported(tx, inserts, evidence);
    // An address that got a row since it was read (a signup in between) stays as that made it.
    counts.already += inserts.length - inserted.length;
    const welcome: { id: string; email: string }[] = [];
    for (const row of inserted) {
      const key = row.email.toLowerCase();
      if (!neverMailed.has(key)) {
        counts.imported++;
        welcome.push(row);
        continue;
      }
      counts.suppressed++;
      const reason = neverMailed.get(key);
      if (reason) toSuppress.push({ id: row.id, reason });
    }
    await suppressReaders(tx, toSuppress, now);
    await markUnsubscribedByImport(tx, toUnsubscribe, now);

    const confirmed = await confirmImported(tx, toConfirm, evidence);
    counts.imported += confirmed.length;
    counts.confirmedWaiting += confirmed.length;
    counts.already += toConfirm.length - confirmed.length;
    // Their own signup's confirmation mail and reminder are not needed any more.
    await abandonQueuedMail(
      tx,
      confirmed.map((row) => ({ id: row.id, reason: `Confirmed by an import (${options.fileName})` })),
    );
    welcome.push(...confirmed);
    if (options.welcome) {
      await enqueueWelcomes(tx, welcome, now);
      counts.welcomes += welcome.length;
    }
  }

  return {
    /** Imports `readers` (duplicates merged here) in batches, one transaction each. */
    async importReaders(readers: ImportReader[], options: ImportOptions): Promise<ImportCounts> {
      const { merged, duplicates } = mergeReaders(readers);
      const counts: ImportCounts = {
        addresses: merged.length,
        duplicates,
        imported: 0,
        confirmedWaiting: 0,
        suppressed: 0,
        optedOut: 0,
        already: 0,
        forgotten: 0,
        welcomes: 0,
      };
      const size = options.batchSize ?? BATCH_SIZE;
      for (let start = 0; start < merged.length; start += size) {
        const batch = merged.slice(start, start + size);
        await db.transaction((tx) => importBatch(tx, batch, options, counts));
      }
      return counts;
    },
  };
}

export type SubscriberImport = ReturnType<typeof createSubscriberImport>;
