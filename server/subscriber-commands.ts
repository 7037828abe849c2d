/**
 * The `subscribers` commands over an open database, as text for the operator: stats, export, a
 * reader's rights, show (all that is kept about one address) and forget (erase it, keeping its
 * keyed hash), and import (a list from another provider, server/subscriber-import.ts); run by
 * `npm run subscribers` itself, or by the running local stack that holds the PGlite folder
 * (through the operator socket, server/effect-operator.ts). Only forget and import write.
 */
import { parseArgs } from "node:util";
import {
  checkEmail,
  createAdminQueries,
  createReadersRights,
  type ExportRow,
  type ForgetCounts,
  type ReaderRecord,
  type SqlExecutor,
  type SqlRow,
  SUBSCRIBER_STATUSES,
  type SubscriberStatus,
} from "../supabase/functions/_shared/hosts.ts";
import { SIGNUP_SOURCE_FIELDS } from "../supabase/functions/_shared/contract/signup-source.ts";
import { readTextVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { isProvider, type Provider, PROVIDERS } from "./import-formats.ts";
import { importExport, readExport } from "./subscriber-import.ts";

export class UsageError extends Error {}

/** `show` of an address nothing is kept about: a plain error, not a mistake of the command line. */
export class UnknownAddress extends Error {}

const ACTIONS = ["stats", "export", "show", "forget", "import"] as const;
type Action = (typeof ACTIONS)[number];
const isAction = (value: unknown): value is Action => ACTIONS.includes(value as Action);

export interface SubscribersCommand {
  action: Action;
  status?: SubscriberStatus;
  /** show and forget: the one address, exactly (any letter case). */
  email?: string;
  /** Written by the command line, never by the stack. */
  output?: string;
  /** import: the file's path (the command line's), the export's provider, whether to welcome. */
  file?: string;
  provider?: Provider;
  welcome?: boolean;
  /** import: the file's base name and contents, as the command line read them. */
  fileName?: string;
  text?: string;
}

/** The key of forget's hash (FORGET_HASH_KEY), and whether it is the local default. */
export interface ForgetKey {
  key: string;
  isDefault: boolean;
}

/** show's and forget's one address: given, whole and valid; never a pattern or a part. */
function checkAddress(action: Action, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new UsageError(`${action} needs the reader's exact address.`);
  const checked = checkEmail(value);
  if (!checked.ok)
    throw new UsageError(`"${value}" is not an e-mail address: ${action} needs the exact address.`);
  return checked.email;
}

function checkProvider(value: unknown): Provider {
  if (!isProvider(value))
    throw new UsageError(
      `--from must be one of ${PROVIDERS.join(", ")} (got "${typeof value === "string" ? value : ""}").`,
    );
  return value;
}

/** import FILE --from PROVIDER [--welcome] */
function parseImport(rest: string[]): SubscribersCommand {
  const { values, positionals } = parseArgs({
    args: rest,
    options: { from: { type: "string" }, welcome: { type: "boolean" } },
    strict: false,
    allowPositionals: true,
  });
  const stray = Object.keys(values).find((name) => name !== "from" && name !== "welcome");
  if (stray) throw new UsageError(`Unknown option "--${stray}" for import.`);
  if (positionals.length !== 1)
    throw new UsageError(
      `import takes one file (got ${positionals.length === 0 ? "none" : positionals.join(" ")}).`,
    );
  if (values.from === undefined || values.from === true)
    throw new UsageError("import needs --from PROVIDER.");
  if (values.welcome !== undefined && typeof values.welcome !== "boolean")
    throw new UsageError("--welcome takes no value.");
  return {
    action: "import",
    file: positionals[0],
    provider: checkProvider(values.from),
    welcome: values.welcome === true,
  };
}

export function parseCommand(args: string[]): SubscribersCommand {
  const [action, ...rest] = args;
  if (!isAction(action)) throw new UsageError(action ? `Unknown command "${action}".` : "No command given.");
  if (action === "import") return parseImport(rest);
  if (action === "show" || action === "forget") {
    const [email, ...more] = rest;
    if (more.length > 0 || email?.startsWith("-"))
      throw new UsageError(`${action} takes one address and nothing else (got "${rest.join(" ")}").`);
    return { action, email: checkAddress(action, email) };
  }
  const allowed = action === "export" ? ["status", "output"] : [];
  // Not strict, so an unknown option gets our message (naming the command) instead of Node's.
  const { tokens } = parseArgs({
    args: rest,
    options: { status: { type: "string" }, output: { type: "string" } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const command: SubscribersCommand = { action };
  for (const token of tokens) {
    if (token.kind !== "option" || !allowed.includes(token.name)) {
      const given =
        token.kind === "option" ? token.rawName : token.kind === "positional" ? token.value : "--";
      throw new UsageError(`Unknown option "${given}" for ${action}.`);
    }
    const value = token.value;
    if (token.name === "status") command.status = checkStatus(value);
    else {
      if (!value) throw new UsageError("--output needs a file name.");
      command.output = value;
    }
  }
  return command;
}

function checkStatus(value: unknown): SubscriberStatus {
  if (!SUBSCRIBER_STATUSES.includes(value as SubscriberStatus))
    throw new UsageError(
      `--status must be one of ${SUBSCRIBER_STATUSES.join(", ")} (got "${typeof value === "string" ? value : ""}").`,
    );
  return value as SubscriberStatus;
}

/** Each command's fields over the socket, beside its action. */
const JSON_FIELDS: Record<Action, string[]> = {
  stats: [],
  export: ["status"],
  show: ["email"],
  forget: ["email"],
  import: ["provider", "fileName", "text", "welcome"],
};

/**
 * A command sent over the operator socket: exactly an action and, for export, an optional status;
 * for show and forget, the address; for import, the provider, the file's name and text, and
 * whether to welcome.
 */
export function subscribersCommandFromJson(value: unknown): SubscribersCommand {
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const { action } = record;
  if (!isAction(action)) throw new UsageError(`Unknown command "${String(action ?? "")}".`);
  const fields = JSON_FIELDS[action];
  const stray = Object.keys(record).filter((key) => key !== "action" && !fields.includes(key));
  if (stray.length > 0) throw new UsageError(`Unknown field "${stray[0]}".`);
  if (fields.includes("email")) return { action, email: checkAddress(action, record.email) };
  if (action === "import") {
    const { fileName, text, welcome } = record;
    if (
      typeof fileName !== "string" ||
      fileName === "" ||
      typeof text !== "string" ||
      typeof welcome !== "boolean"
    )
      throw new UsageError("import needs the file's name, its text and whether to welcome.");
    return { action, provider: checkProvider(record.provider), fileName, text, welcome };
  }
  return record.status === undefined ? { action } : { action, status: checkStatus(record.status) };
}

/**
 * One CSV field (RFC 4180). A field a spreadsheet would run as a formula (=, +, -, @) gets a
 * leading apostrophe: an address like `=cmd@example.com` is valid and must stay inert.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const COLUMNS: (keyof ExportRow)[] = [
  "email",
  "status",
  "signed_up_at",
  "confirmed_at",
  "unsubscribed_at",
  "consent_source",
  "consent_at",
  "pending_consent_source",
  "pending_consent_at",
  "unsubscribe_reason",
  "complained_at",
  "suppressed_at",
  "suppressed_reason",
  "imported_from",
  "imported_at",
  ...SIGNUP_SOURCE_FIELDS,
];

export function toCsv(rows: ExportRow[]): string {
  const cell = (value: ExportRow[keyof ExportRow]) =>
    value === null ? "" : csvField(value instanceof Date ? value.toISOString() : String(value));
  return (
    [COLUMNS.join(","), ...rows.map((row) => COLUMNS.map((column) => cell(row[column])).join(","))].join(
      "\r\n",
    ) + "\r\n"
  );
}

/** One value as the operator reads it: a time in ISO, nothing as a dash. */
function shown(column: string, value: unknown): string {
  if (value === null || value === undefined) return "-";
  // The links' token hashes are kept, but say nothing to a person.
  if (column.endsWith("token_hash")) return "(a hash of the link's token)";
  if (value instanceof Date) return value.toISOString();
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function rowLines(row: SqlRow, indent = "  "): string[] {
  const width = Math.max(...Object.keys(row).map((column) => column.length));
  return Object.entries(row).map(
    ([column, value]) => `${indent}${column.padEnd(width)}  ${shown(column, value)}`,
  );
}

function section(title: string, rows: SqlRow[]): string[] {
  if (rows.length === 0) return [`${title}: none`];
  return [
    `${title}: ${rows.length}`,
    ...rows.flatMap((row, index) => [`  ${index + 1}.`, ...rowLines(row, "     ")]),
  ];
}

/** show's text: every table's rows about the address, by table. */
export function readerText(email: string, record: ReaderRecord, where: string): string {
  return [
    `Everything kept about ${email} in ${where}`,
    "",
    ...(record.subscriber
      ? ["The reader (subscribers): consent, status times, first source", ...rowLines(record.subscriber)]
      : ["The reader (subscribers): no row"]),
    "",
    ...section("Confirmation, reminder and welcome mail (mail_jobs)", record.mailJobs),
    "",
    ...section("Effects of the Day (effect_deliveries)", record.deliveries),
    "",
    ...section("Bounces and complaints (mail_events)", record.events),
    "",
    ...(record.mailbox
      ? ["The mailbox's mail counters (mailbox_mail_limits)", ...rowLines(record.mailbox)]
      : ["The mailbox's mail counters (mailbox_mail_limits): none"]),
    "",
    record.forgottenAt
      ? `Forgotten (forgotten_readers): its keyed hash is kept since ${shown("", record.forgottenAt)}`
      : "Forgotten (forgotten_readers): no",
    "",
  ].join("\n");
}

/** forget's text: how many rows of each table went. */
export function forgetText(email: string, counts: ForgetCounts, where: string, key: ForgetKey): string {
  const width = Math.max(...Object.keys(counts).map((table) => table.length));
  const erased = Object.values(counts).some((count) => count > 0);
  return [
    erased
      ? `Forgot ${email} in ${where}. Erased, per table:`
      : `Nothing was kept about ${email} in ${where}.`,
    ...(erased ? Object.entries(counts).map(([table, count]) => `  ${table.padEnd(width)}  ${count}`) : []),
    ...(counts.effect_deliveries > 0
      ? ["  (the Effects sent stay counted for their edition, without the reader or the address)"]
      : []),
    ...(counts.mail_events > 0
      ? ["  (the events stay counted for their edition, without the reader or the provider's words)"]
      : []),
    "Kept: a keyed hash of the address (forgotten_readers), so no import adds it again; a signup of its own still works.",
    ...(key.isDefault
      ? [
          "FORGET_HASH_KEY is not set: the hash uses the local default key. Set your own before forgetting a reader of the real list (docs/operating.md).",
        ]
      : []),
    "",
  ].join("\n");
}

/**
 * The command's text: the counts, the CSV, a reader's record, or what forgetting erased. `where`
 * names the storage for the titles; `key` is forget's hash key (show reads whether it is kept).
 */
export async function subscribersText(
  command: SubscribersCommand,
  db: SqlExecutor,
  where: string,
  key: ForgetKey = { key: readTextVariable({}, "FORGET_HASH_KEY"), isDefault: true },
  now: Date = new Date(),
): Promise<string> {
  if (command.action === "import")
    return importExport(
      readExport(command.provider as Provider, command.fileName as string, command.text as string),
      db,
      where,
      { forgetKey: key.key, welcome: command.welcome === true, now },
    );
  if (command.action === "show" || command.action === "forget") {
    const email = command.email as string;
    const rights = createReadersRights(db, key.key);
    if (command.action === "forget") return forgetText(email, await rights.forget(email, now), where, key);
    const record = await rights.show(email);
    if (!record) throw new UnknownAddress(`Nothing is kept about ${email} in ${where}.`);
    return readerText(email, record, where);
  }
  const store = createAdminQueries(db);
  if (command.action === "export") return toCsv(await store.list(command.status));
  const counts = await store.countByStatus();
  const health = await store.health();
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const width = "complained".length;
  const share = (count: number) =>
    total > 0 ? ` (${((100 * count) / total).toFixed(1)} % of all addresses)` : "";
  return [
    `Subscribers in ${where}`,
    ...SUBSCRIBER_STATUSES.map((status) => `${status.padEnd(width)}  ${counts[status]}`),
    `${"total".padEnd(width)}  ${total}`,
    `${"bounced".padEnd(width)}  ${health.suppressed}${share(health.suppressed)}: no mail goes to them until they confirm a new signup`,
    `${"complained".padEnd(width)}  ${health.complained}${share(health.complained)}: reported a mail as spam, and were unsubscribed`,
    "",
  ].join("\n");
}
