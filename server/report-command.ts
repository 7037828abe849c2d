/**
 * `npm run report`'s command line and its numbers over an open database: the range and output
 * options, checked before anything is opened, and the report read by the core
 * (`readOwnerReport`). The same reading runs in the `npm run report` process and, when a local
 * stack holds the PGlite folder, inside that stack (server/effect-operator.ts hands it over).
 */
import { parseArgs } from "node:util";
import {
  type OwnerReport,
  readOwnerReport,
  ReportRangeError,
  type SqlExecutor,
} from "../supabase/functions/_shared/hosts.ts";
import { isCalendarDay } from "../supabase/functions/_shared/contract/calendar-day.ts";

export class ReportUsageError extends Error {}

/** What the stack is asked for: the range only (the stack knows its time zone). */
export interface ReportRequest {
  from?: string;
  to?: string;
}

export interface ReportCommand extends ReportRequest {
  json: boolean;
  /** The page's (or with --json, the numbers') file; by default the page goes to the current folder. */
  output?: string;
}

const DAY_OPTIONS = ["from", "to"] as const;

function checkDay(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && !isCalendarDay(value))
    throw new ReportUsageError(`--${name} must be a day written YYYY-MM-DD (got "${value}").`);
  return value;
}

export function parseReportCommand(args: string[]): ReportCommand {
  let values: { from?: string; to?: string; json?: boolean; output?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        from: { type: "string" },
        to: { type: "string" },
        json: { type: "boolean" },
        output: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ReportUsageError((error as Error).message);
  }
  if (values.output === "") throw new ReportUsageError("--output needs a file name.");
  const command: ReportCommand = { json: values.json ?? false };
  for (const name of DAY_OPTIONS) {
    const day = checkDay(name, values[name]);
    if (day !== undefined) command[name] = day;
  }
  if (command.from && command.to && command.from > command.to)
    throw new ReportUsageError(`--from ${command.from} is after --to ${command.to}.`);
  if (values.output !== undefined) command.output = values.output;
  return command;
}

/** A request that came over the operator socket: only `from` and `to`, each a day. */
export function reportRequestFromJson(value: unknown): ReportRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ReportUsageError("The report's request is not an object.");
  const request: ReportRequest = {};
  for (const [name, given] of Object.entries(value)) {
    if (name !== "from" && name !== "to") throw new ReportUsageError(`Unknown field "${name}".`);
    if (typeof given !== "string") throw new ReportUsageError(`--${name} takes a day, as text.`);
    request[name] = checkDay(name, given);
  }
  return request;
}

/** The report's numbers as JSON text; a range that cannot be (after today) is a ReportUsageError. */
export async function reportJson(
  request: ReportRequest,
  db: SqlExecutor,
  timeZone: string,
  now: Date = new Date(),
): Promise<string> {
  let report: OwnerReport;
  try {
    report = await readOwnerReport(db, { ...request, timeZone, now });
  } catch (error) {
    if (error instanceof ReportRangeError) throw new ReportUsageError(error.message);
    throw error;
  }
  return `${JSON.stringify(report, null, 2)}\n`;
}
