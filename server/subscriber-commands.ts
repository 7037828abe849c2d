/**
 * The `subscribers` commands (stats, export) over an open database, as text for the operator:
 * run by `npm run subscribers` itself, or by the running local stack that holds the PGlite folder
 * (through the operator socket, server/effect-operator.ts). Both only read.
 */
import { parseArgs } from "node:util";
import {
  createAdminQueries,
  type ExportRow,
  type SqlExecutor,
  SUBSCRIBER_STATUSES,
  type SubscriberStatus,
} from "../supabase/functions/_shared/hosts.ts";
import { SIGNUP_SOURCE_FIELDS } from "../supabase/functions/_shared/contract/signup-source.ts";

export class UsageError extends Error {}

export interface SubscribersCommand {
  action: "stats" | "export";
  status?: SubscriberStatus;
  /** Written by the command line, never by the stack. */
  output?: string;
}

export function parseCommand(args: string[]): SubscribersCommand {
  const [action, ...rest] = args;
  if (action !== "stats" && action !== "export")
    throw new UsageError(action ? `Unknown command "${action}".` : "No command given.");
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

/** A command sent over the operator socket: exactly an action and an optional status. */
export function subscribersCommandFromJson(value: unknown): SubscribersCommand {
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const stray = Object.keys(record).filter((key) => key !== "action" && key !== "status");
  if (stray.length > 0) throw new UsageError(`Unknown field "${stray[0]}".`);
  if (record.action !== "stats" && record.action !== "export")
    throw new UsageError(`Unknown command "${String(record.action ?? "")}".`);
  return record.status === undefined
    ? { action: record.action }
    : { action: record.action, status: checkStatus(record.status) };
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

/** The command's text: the counts, or the CSV. `where` names the storage for the counts' title. */
export async function subscribersText(
  command: SubscribersCommand,
  db: SqlExecutor,
  where: string,
): Promise<string> {
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
