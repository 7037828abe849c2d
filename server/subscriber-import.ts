/**
 * `npm run subscribers -- import FILE --from PROVIDER [--welcome]`: the provider's export read
 * (server/csv-records.ts, server/import-formats.ts), each address checked by the signup's own rule
 * (`checkEmail`), then imported by the core (subscriptions/import.ts), and what happened told as
 * the owner reads it. Run by the command itself, or by the local stack that holds the PGlite
 * folder, which gets the file's text over its operator socket.
 */
import path from "node:path";
import {
  checkEmail,
  createSubscriberImport,
  type ImportCounts,
  type ImportReader,
  type SqlExecutor,
} from "../supabase/functions/_shared/hosts.ts";
import { CsvError, csvRecords } from "./csv-records.ts";
import { EXPORT_FORMATS, type ExportRow, ImportFormatError, type Provider } from "./import-formats.ts";

/** A row that names no address, or a status the provider does not write: kept out, with its line. */
export interface RejectedRow {
  line: number;
  value: string;
  reason: string;
}

export interface ParsedExport {
  provider: Provider;
  fileName: string;
  /** Data rows read (the header and empty lines aside). */
  rows: number;
  readers: ImportReader[];
  rejected: RejectedRow[];
  /** Rows skipped on purpose, by why (never opted in there, an erasure request). */
  skipped: Map<string, number>;
}

/** The export in `text` (a file's contents), read as `provider` writes it; throws ImportFormatError. */
export function readExport(provider: Provider, fileName: string, text: string): ParsedExport {
  const format = EXPORT_FORMATS[provider];
  let records;
  try {
    records = csvRecords(text);
  } catch (error) {
    if (error instanceof CsvError)
      throw new ImportFormatError(`${fileName} is not a CSV file that can be read: ${error.message}.`);
    throw error;
  }
  const [head, ...rows] = records;
  if (!head) throw new ImportFormatError(`${fileName} is empty.`);
  const columns = new Map<string, number>();
  head.fields.forEach((name, index) => {
    const key = name.trim().toLowerCase();
    if (!columns.has(key)) columns.set(key, index);
  });
  const header = new Set(columns.keys());
  const missing = format.required.filter((names) => !names.some((name) => header.has(name.toLowerCase())));
  if (missing.length > 0)
    throw new ImportFormatError(
      `${fileName} is not ${format.title}'s subscriber export: its header lacks ${missing
        .map((names) =>
          names.length === 1 ? `"${names[0]}"` : `one of ${names.map((name) => `"${name}"`).join(", ")}`,
        )
        .join(" and ")} (it has ${head.fields
        .slice(0, 8)
        .map((name) => `"${name}"`)
        .join(
          ", ",
        )}${head.fields.length > 8 ? ", ..." : ""}). docs/operating.md says which file to export from each provider.`,
    );
  format.file?.(fileName, header);

  const parsed: ParsedExport = {
    provider,
    fileName,
    rows: rows.length,
    readers: [],
    rejected: [],
    skipped: new Map(),
  };
  const indexOf = new Map<string, number | undefined>();
  const column = (name: string) => {
    if (!indexOf.has(name)) indexOf.set(name, columns.get(name.toLowerCase()));
    return indexOf.get(name);
  };
  for (const { line, fields } of rows) {
    const row: ExportRow = {
      get(...names) {
        for (const name of names) {
          const index = column(name);
          if (index !== undefined) return (fields[index] ?? "").trim();
        }
        return "";
      },
    };
    const value = row.get(...format.email);
    const checked = checkEmail(value);
    if (!checked.ok) {
      parsed.rejected.push({
        line,
        value,
        reason: checked.reason === "missing" ? "no address" : "not an address",
      });
      continue;
    }
    const reading = format.read(row, header);
    if ("invalid" in reading) parsed.rejected.push({ line, value, reason: reading.invalid });
    else if ("skip" in reading) parsed.skipped.set(reading.skip, (parsed.skipped.get(reading.skip) ?? 0) + 1);
    else parsed.readers.push({ email: checked.email, ...reading });
  }
  return parsed;
}

/** How many rejected rows the summary names one by one; the rest are counted. */
const REJECTED_SHOWN = 20;

const quoted = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);

/** What the import did, as the owner reads it. */
export function importSummary(
  parsed: ParsedExport,
  counts: ImportCounts,
  where: string,
  welcome: boolean,
): string {
  const title = EXPORT_FORMATS[parsed.provider].title;
  const lines: [string, number, string][] = [
    [
      "new readers, confirmed",
      counts.imported,
      counts.confirmedWaiting > 0
        ? `${counts.confirmedWaiting} of them had signed up here and were waiting for their confirmation`
        : "with their opt-in time there as their consent",
    ],
    ["kept as never to be mailed", counts.suppressed, "unsubscribed, complained or bounced there"],
    [
      "left since an earlier import",
      counts.optedOut,
      "their consent came from an import; this export says they left",
    ],
    ["already on the list", counts.already, "kept as they were: their own consent, unsubscribe or bounce"],
    ["skipped: forgotten readers", counts.forgotten, "they asked to be forgotten (subscribers forget)"],
    ...[...parsed.skipped].map(([why, count]): [string, number, string] => [`skipped: ${why}`, count, ""]),
    ["duplicates merged", counts.duplicates, "the same address again, in any letter case"],
    ["rows left out", parsed.rejected.length, parsed.rejected.length > 0 ? "below, with their lines" : ""],
  ];
  const width = Math.max(...lines.map(([label]) => label.length));
  const rejected = parsed.rejected
    .slice(0, REJECTED_SHOWN)
    .map(({ line, value, reason }) => `  line ${line}: ${quoted(value)} (${reason})`);
  if (parsed.rejected.length > REJECTED_SHOWN)
    rejected.push(`  and ${parsed.rejected.length - REJECTED_SHOWN} more`);
  return [
    `Imported ${parsed.fileName} (${title}) into ${where}: ${parsed.rows} rows, ${counts.addresses} addresses.`,
    ...lines
      .filter(([label, count]) => count > 0 || !label.startsWith("skipped:"))
      .map(
        ([label, count, note]) =>
          `  ${label.padEnd(width)}  ${String(count).padStart(7)}${note ? `  ${note}` : ""}`,
      ),
    ...(rejected.length > 0 ? ["Rows left out (the header is line 1):", ...rejected] : []),
    welcome
      ? `Welcome mail queued for ${counts.welcomes} readers (the latest Effect, through the mail queue; no confirmation mail).`
      : "No mail was queued for anyone: --welcome would welcome the new readers with the latest Effect.",
    "",
  ].join("\n");
}

/** Imports a read export into `db` and tells what happened. */
export async function importExport(
  parsed: ParsedExport,
  db: SqlExecutor,
  where: string,
  options: { forgetKey: string; welcome: boolean; now: Date },
): Promise<string> {
  const counts = await createSubscriberImport(db, options.forgetKey).importReaders(parsed.readers, {
    provider: parsed.provider,
    fileName: parsed.fileName,
    now: options.now,
    welcome: options.welcome,
  });
  return importSummary(parsed, counts, where, options.welcome);
}

/** The name a file is kept under: its base name, at most the column's 255 characters. */
export const importFileName = (file: string) => path.basename(file).slice(0, 255) || "import.csv";
