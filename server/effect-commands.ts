/**
 * The `effect` commands (preview, send, status) over an open database, as text for the operator.
 * The same function runs in the `npm run effect` process and, when a local stack holds the PGlite
 * folder, inside that stack (server/effect-operator.ts hands the command over).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { type Config, type Env, parseConfig } from "../supabase/functions/_shared/config.ts";
import { readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import type { Mailer } from "../supabase/functions/_shared/mail/mailer.ts";
import { createSmtpMailer } from "../supabase/functions/_shared/mail/smtp.ts";
import { dayIn } from "../supabase/functions/_shared/contract/calendar-day.ts";
import { checkEmail } from "../supabase/functions/_shared/subscriptions/email-address.ts";
import { maskAddresses, maskEmail } from "../supabase/functions/_shared/logger.ts";
import { createRateLimiter } from "../supabase/functions/_shared/effect-sending/delivery-decisions.ts";
import {
  createDeliveryStore,
  DELIVERY_STATES,
  type DeliveryStore,
} from "../supabase/functions/_shared/effect-sending/delivery-store.ts";
import { effectMail, type MailEdition } from "../supabase/functions/_shared/effect-sending/edition.ts";
import { checkEditionDate } from "../supabase/functions/_shared/effect-sending/edition-source.ts";
import { sendDaysEffect } from "../supabase/functions/_shared/effect-sending/send-day.ts";
import {
  parseSendingConfig,
  type SendingConfig,
} from "../supabase/functions/_shared/effect-sending/sending-config.ts";
import type { Logger } from "../supabase/functions/_shared/logger.ts";
import { mailSettings } from "../supabase/functions/_shared/mail/list-headers.ts";
import type { SenderIdentity } from "../supabase/functions/_shared/contract/published.ts";
import type { SqlExecutor } from "../supabase/functions/_shared/db/sql-executor.ts";
import { newToken } from "../supabase/functions/_shared/subscriptions/tokens.ts";
import { loadEdition } from "./effect-editions.ts";
import { composeMime, createOutboxMailer, writeWhole } from "./outbox-mailer.ts";

export type EffectCommand =
  | { action: "preview"; date: string }
  | { action: "send"; date: string; to?: string; retryUnknown: boolean }
  | { action: "status"; date: string };

export interface EffectContext {
  db: SqlExecutor;
  config: Config;
  /** The names and time zone from the content (read once, when the process starts). */
  identity: SenderIdentity;
  sending: SendingConfig;
  env: Env;
  dataDir: string;
  publicDir: string;
  log: Logger;
  now?: () => Date;
  /** Finish the batch in hand and stop (SIGINT, shutdown). */
  signal?: AbortSignal;
  /** The process's one mailer and pace, when it has them (the local stack); else made per command. */
  shared?: { mailer: Mailer; rate: ReturnType<typeof createRateLimiter> };
}

export class EffectUsageError extends Error {}

/** The context from the environment (SITE_URL, SMTP_URL, MAIL_RATE_PER_SECOND, ...) and where the data is. */
export function effectContext(
  env: Env,
  where: Pick<EffectContext, "db" | "dataDir" | "publicDir" | "log" | "signal" | "identity">,
  defaultSiteUrl?: string,
): EffectContext {
  return { ...where, env, config: parseConfig(env, defaultSiteUrl), sending: parseSendingConfig(env) };
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

/** This sender's name on the rows it holds, unique across hosts, processes and runs. */
export const senderName = () => `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

/** The Effect's mailer: pooled SMTP, or the outbox folder without SMTP_URL. */
export function createEffectMailer(ctx: Pick<EffectContext, "env" | "dataDir" | "sending">): Mailer {
  const smtpUrl = readVariable(ctx.env, "SMTP_URL");
  return smtpUrl
    ? createSmtpMailer(smtpUrl, { pooled: { maxConnections: ctx.sending.maxConnections } })
    : createOutboxMailer(path.join(ctx.dataDir, "outbox"));
}

/** The prepared edition (what its recipients get), else the published one. */
async function editionFor(ctx: EffectContext, store: DeliveryStore, date: string): Promise<MailEdition> {
  return (await store.edition(date)) ?? loadEdition(date, ctx.publicDir, ctx.config.siteUrl);
}

/** Gmail's and Yahoo's limit for bulk senders: complaints per mail delivered. */
const COMPLAINT_RATE_LIMIT = 0.003;

export async function statusText(store: DeliveryStore, date: string): Promise<string> {
  const status = await store.status(date);
  if (!status)
    return `The Effect of ${date} is not prepared: nothing is queued (run send to prepare and send it).\n`;
  const width = "complained".length;
  const lines = [
    `The Effect of ${date}: ${status.state}${status.state === "paused" ? ` after ${status.consecutiveFailures} temporary failures in a row (the next send resumes it)` : ""}`,
    ...DELIVERY_STATES.map((state) => `${state.padEnd(width)}  ${status.counts[state]}`),
  ];
  const share = (count: number) =>
    status.counts.sent > 0
      ? ` (${((100 * count) / status.counts.sent).toFixed(1)} % of the ${status.counts.sent} sent)`
      : "";
  const { bounced, softBounced, complained } = status.events;
  lines.push(
    `${"bounced".padEnd(width)}  ${bounced}${share(bounced)}${softBounced > 0 ? `; ${softBounced} more bounced for a while` : ""}`,
    `${"complained".padEnd(width)}  ${complained}${share(complained)}`,
  );
  if (status.counts.sent > 0 && complained / status.counts.sent >= COMPLAINT_RATE_LIMIT)
    lines.push(
      `The complaint rate is at or above 0.3 %, where Gmail and Yahoo start refusing a bulk sender's mail: check that every reader asked for it.`,
    );
  if (status.lastError) lines.push(`last error: ${maskAddresses(status.lastError)}`);
  if (status.counts.unknown > 0)
    lines.push(
      `${status.counts.unknown} mails were being sent when a sender stopped: they may or may not have arrived. \`send ${date} --retry-unknown\` sends them again.`,
    );
  return `${lines.join("\n")}\n`;
}

/** Runs one command; the result is the text to print. Errors (not published, bad address) throw. */
export async function runEffectCommand(command: EffectCommand, ctx: EffectContext): Promise<string> {
  const now = ctx.now ?? (() => new Date());
  const store = createDeliveryStore(ctx.db);
  const { date } = command;

  if (command.action === "status") return statusText(store, date);

  if (command.action === "preview") {
    const edition = await editionFor(ctx, store, date);
    // A token that is not stored: the preview shows the links' shape, they unsubscribe nobody.
    const message = effectMail(mailSettings(ctx.config, ctx.identity), edition, {
      to: "subscriber@example.com",
      unsubscribeToken: newToken(),
    });
    const dir = path.join(ctx.dataDir, "preview");
    mkdirSync(dir, { recursive: true });
    const eml = path.join(dir, `${date}.eml`);
    const html = path.join(dir, `${date}.html`);
    writeWhole(eml, await composeMime(message));
    writeWhole(html, message.html);
    return `Preview of the Effect of ${date} ("${edition.subject}"):\n${eml}\n${html}\n`;
  }

  const mailer = ctx.shared?.mailer ?? createEffectMailer(ctx);
  try {
    if (command.to !== undefined) {
      const address = checkEmail(command.to);
      if (!address.ok) throw new EffectUsageError(`--to must be an e-mail address (got "${command.to}").`);
      const edition = await editionFor(ctx, store, date);
      const message = effectMail(mailSettings(ctx.config, ctx.identity), edition, {
        to: address.email,
        unsubscribeToken: newToken(),
      });
      await mailer.send({ ...message, reference: `effect-test-${date}` });
      return `Test mail of the Effect of ${date} sent to ${maskEmail(address.email)} via ${mailer.description}; nothing was recorded for the list.\n`;
    }

    const result = await sendDaysEffect(date, {
      store,
      loadEdition: (day) => loadEdition(day, ctx.publicDir, ctx.config.siteUrl),
      today: dayIn(ctx.identity.timeZone, now()),
      retryUnknown: command.retryUnknown,
      mailer,
      settings: mailSettings(ctx.config, ctx.identity),
      log: ctx.log,
      rate: ctx.shared?.rate ?? createRateLimiter(ctx.sending.ratePerSecond),
      owner: senderName(),
      batchSize: ctx.sending.batchSize,
      leaseSeconds: ctx.sending.leaseSeconds,
      policy: ctx.sending.retry,
      now,
      waitForRetries: true,
      signal: ctx.signal,
    });
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
    return `${lines.join("\n")}\n${await statusText(store, date)}`;
  } finally {
    if (!ctx.shared) await mailer.close?.();
  }
}
