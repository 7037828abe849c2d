/**
 * `npm run subscribers -- stats` and `npm run subscribers -- export [--status confirmed] [--output file.csv]`:
 * the operator's view of the list, against the same storage as the local stack (DATABASE_URL, or
 * PGlite in DATA_DIR). CSV goes to standard output unless --output is given.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  createAdminQueries,
  type ExportRow,
  SUBSCRIBER_STATUSES,
} from "../supabase/functions/_shared/subscriptions/admin-queries.ts";
import type { SubscriberStatus } from "../supabase/functions/_shared/subscriptions/lifecycle.ts";
import { loadDotEnv, parseLocalEnv } from "../server/local-env.ts";
import { openStorage } from "../server/storage.ts";

const USAGE = `Usage:
  npm run subscribers -- stats
  npm run subscribers -- export [--status pending|confirmed|unsubscribed] [--output file.csv]`;

export class UsageError extends Error {}

interface Command {
  action: "stats" | "export";
  status?: SubscriberStatus;
  output?: string;
}

export function parseCommand(args: string[]): Command {
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
  const command: Command = { action };
  for (const token of tokens) {
    if (token.kind !== "option" || !allowed.includes(token.name)) {
      const given =
        token.kind === "option" ? token.rawName : token.kind === "positional" ? token.value : "--";
      throw new UsageError(`Unknown option "${given}" for ${action}.`);
    }
    const value = token.value;
    if (token.name === "status") {
      if (!SUBSCRIBER_STATUSES.includes(value as SubscriberStatus)) {
        throw new UsageError(
          `--status must be one of ${SUBSCRIBER_STATUSES.join(", ")} (got "${value ?? ""}").`,
        );
      }
      command.status = value as SubscriberStatus;
    } else {
      if (!value) throw new UsageError("--output needs a file name.");
      command.output = value;
    }
  }
  return command;
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

export async function run(args: string[], env = process.env): Promise<string> {
  const command = parseCommand(args);
  const { databaseUrl, dataDir } = parseLocalEnv(env);
  // Both commands only read: a PostgreSQL database is never migrated by them.
  const storage = await openStorage({ databaseUrl, dataDir, readOnly: true });
  try {
    const store = createAdminQueries(storage.db);
    if (command.action === "stats") {
      const counts = await store.countByStatus();
      const health = await store.health();
      const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
      const width = "complained".length;
      const share = (count: number) =>
        total > 0 ? ` (${((100 * count) / total).toFixed(1)} % of all addresses)` : "";
      return [
        `Subscribers in ${storage.description}`,
        ...SUBSCRIBER_STATUSES.map((status) => `${status.padEnd(width)}  ${counts[status]}`),
        `${"total".padEnd(width)}  ${total}`,
        `${"bounced".padEnd(width)}  ${health.suppressed}${share(health.suppressed)}: no mail goes to them until they confirm a new signup`,
        `${"complained".padEnd(width)}  ${health.complained}${share(health.complained)}: reported a mail as spam, and were unsubscribed`,
        "",
      ].join("\n");
    }
    const csv = toCsv(await store.list(command.status));
    if (command.output) {
      writeFileSync(command.output, csv);
      return `${csv.split("\r\n").length - 2} rows written to ${command.output}\n`;
    }
    return csv;
  } finally {
    await storage.close();
  }
}

if (require.main === module) {
  loadDotEnv();
  run(process.argv.slice(2)).then(
    (output) => process.stdout.write(output),
    (error: unknown) => {
      console.error(
        error instanceof UsageError
          ? `${error.message}\n\n${USAGE}`
          : `subscribers: ${error instanceof Error ? error.message : String(error)}`,
      );
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}
