/**
 * The `effect` commands (preview, send, status) over an open database, as text for the operator.
 * The same function runs in the `npm run effect` process and, when a local stack holds the PGlite
 * folder, inside that stack (server/effect-operator.ts hands the command over).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { SenderIdentity } from "../supabase/functions/_shared/contract/published.ts";
import type { Env } from "../supabase/functions/_shared/contract/variables.ts";
import {
  checkEditionDate,
  type EffectSending,
  InvalidTestAddress,
  type Logger,
  maskEmail,
  type SqlExecutor,
} from "../supabase/functions/_shared/hosts.ts";
import { createNodeBackend } from "./node-backend.ts";
import { composeMime, writeWhole } from "./outbox-mailer.ts";

export type EffectCommand =
  | { action: "preview"; date: string }
  | { action: "send"; date: string; to?: string; retryUnknown: boolean }
  | { action: "status"; date: string };

export interface EffectContext {
  /** The backend's effect-sending feature. */
  effects: EffectSending;
  /** Where `preview` writes its files (`$DATA_DIR/preview/`). */
  dataDir: string;
  /** Finish the batch in hand and stop (SIGINT, shutdown). */
  signal?: AbortSignal;
  /** For a context made for one command: closes its mail transport afterwards. */
  close?: () => Promise<void>;
}

export class EffectUsageError extends Error {}

/**
 * A context for commands run outside the stack (`npm run effect`, the tests, the benchmarks): the
 * core's front door over `db`, with the effect-sending feature only, from the environment
 * (SITE_URL, SMTP_URL, MAIL_RATE_PER_SECOND, ...).
 */
export function effectContext(
  env: Env,
  where: {
    db: SqlExecutor;
    dataDir: string;
    publicDir: string;
    log: Logger;
    identity: SenderIdentity;
    signal?: AbortSignal;
    now?: () => Date;
  },
  defaultSiteUrl?: string,
): EffectContext {
  const backend = createNodeBackend(env, { ...where, defaultSiteUrl, features: ["effect-sending"] });
  return {
    effects: backend.effects as EffectSending,
    dataDir: where.dataDir,
    signal: where.signal,
    close: () => backend.closeMail(),
  };
}

export function parseEffectCommand(
  positionals: string[],
  options: { to?: string; "retry-unknown"?: boolean },
): EffectCommand {
  const [action, date, ...extra] = positionals;
  if (action !== "preview" && action !== "send" && action !== "status")
    throw new EffectUsageError(action ? `Unknown command "${action}".` : "No command given.");
  if (extra.length > 0) throw new EffectUsageError(`Unexpected "${extra.join(" ")}".`);
  let day: string;
  try {
    day = checkEditionDate(date);
  } catch (error) {
    throw new EffectUsageError((error as Error).message);
  }
  if (action !== "send" && (options.to !== undefined || options["retry-unknown"]))
    throw new EffectUsageError(`--to and --retry-unknown are options of send, not of ${action}.`);
  if (action === "send") {
    if (options.to !== undefined && options["retry-unknown"])
      throw new EffectUsageError("--to sends one test mail; it cannot be combined with --retry-unknown.");
    return { action, date: day, to: options.to, retryUnknown: options["retry-unknown"] ?? false };
  }
  return { action, date: day };
}

/**
 * A command that arrived as JSON (from `npm run effect` over the operator socket), checked by the
 * same rules as the command line: an unknown action, a bad date, an option of another action or
 * an unknown field is refused, never read as a send.
 */
export function effectCommandFromJson(value: unknown): EffectCommand {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new EffectUsageError("The command is not an object.");
  const { action, date, to, retryUnknown, ...rest } = value as Record<string, unknown>;
  const unknownFields = Object.keys(rest);
  if (unknownFields.length > 0) throw new EffectUsageError(`Unknown field "${unknownFields.join('", "')}".`);
  if (typeof action !== "string" || typeof date !== "string")
    throw new EffectUsageError("The command needs an action and a date, as text.");
  if (to !== undefined && typeof to !== "string") throw new EffectUsageError("--to takes an address.");
  if (retryUnknown !== undefined && typeof retryUnknown !== "boolean")
    throw new EffectUsageError("--retry-unknown takes no value.");
  return parseEffectCommand([action, date], { to, "retry-unknown": retryUnknown || undefined });
}

/** Runs one command; the result is the text to print. Errors (not published, bad address) throw. */
export async function runEffectCommand(command: EffectCommand, ctx: EffectContext): Promise<string> {
  const { effects } = ctx;
  const { date } = command;
  try {
    if (command.action === "status") return await effects.status(date);

    if (command.action === "preview") {
      const { subject, message } = await effects.preview(date);
      const dir = path.join(ctx.dataDir, "preview");
      mkdirSync(dir, { recursive: true });
      const eml = path.join(dir, `${date}.eml`);
      const html = path.join(dir, `${date}.html`);
      writeWhole(eml, await composeMime(message));
      writeWhole(html, message.html);
      return `Preview of the Effect of ${date} ("${subject}"):\n${eml}\n${html}\n`;
    }

    if (command.to !== undefined) {
      let address: string;
      try {
        address = await effects.testMail(date, command.to);
      } catch (error) {
        if (error instanceof InvalidTestAddress) throw new EffectUsageError(error.message);
        throw error;
      }
      return `Test mail of the Effect of ${date} sent to ${maskEmail(address)}; nothing was recorded for the list.\n`;
    }

    const result = await effects.send(date, { retryUnknown: command.retryUnknown, signal: ctx.signal });
    const lines: string[] = [];
    if (result.markedUnknown > 0)
      lines.push(`${result.markedUnknown} mails a stopped sender was sending are now unknown (not resent).`);
    if (result.preparedFor !== null)
      lines.push(`Prepared the Effect of ${date} for ${result.preparedFor} confirmed subscribers.`);
    if (result.resumed) lines.push("Resumed the paused edition.");
    if (result.requeued !== null) lines.push(`${result.requeued} mails in doubt (unknown) queued again.`);
    const report = result.run;
    lines.push(
      `This run: ${report.sent} sent, ${report.failed} failed, ${report.skipped} skipped, ${report.retried} temporary failures${report.paused ? "; the edition is paused" : ""}${!report.finished && !report.paused ? "; stopped before the end" : ""}.`,
    );
    return `${lines.join("\n")}\n${await effects.status(date)}`;
  } finally {
    await ctx.close?.();
  }
}
