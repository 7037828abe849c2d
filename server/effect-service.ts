/**
 * The Effect sender inside the local stack: on PGlite it first marks what a dead process left in
 * `sending` as `unknown` (one process holds the folder, so every such row is stale) and takes
 * `npm run effect` commands over its socket; with `SEND_AT=HH:MM` it sends the day's Effect by
 * itself once that time has come in the brand's time zone, and keeps trying each minute until the
 * edition is done (which also resumes a paused one). With SEND_AT or OWNER_EMAIL it also gives the
 * owner's weekly report its turn each minute (`weeklyReport().sendIfDue()`, as send-effect does
 * on Supabase).
 */
import {
  type Backend,
  EditionError,
  type EffectSending,
  type Logger,
  type SqlExecutor,
} from "../supabase/functions/_shared/hosts.ts";
import { type EffectContext, runEffectCommand } from "./effect-commands.ts";
import { startOperatorSocket } from "./effect-operator.ts";
import { reportJson } from "./report-command.ts";
import { runReportMailCommand } from "./report-mail-command.ts";
import { type ForgetKey, subscribersText } from "./subscriber-commands.ts";

export interface EffectServiceOptions {
  backend: Backend;
  /** For the subscriber commands the socket answers. */
  db: SqlExecutor;
  /** PGlite: this process alone holds the data. */
  exclusive: boolean;
  /** The names' time zone, for the start-up line and the report's days. */
  timeZone: string;
  dataDir: string;
  /** The key of the hash `subscribers forget` keeps (FORGET_HASH_KEY). */
  forgetKey: ForgetKey;
  log: Logger;
}

const TICK_MS = 60_000;
const FIRST_TICK_MS = 1_000;

export async function startEffectService(options: EffectServiceOptions) {
  const { backend, exclusive, log } = options;
  const effects = backend.effects as EffectSending;
  const { sending } = backend;
  if (exclusive) {
    const stale = await effects.markStaleAsUnknown(true);
    if (stale > 0)
      log.warn(
        `${stale} Effect mails were being sent when the last process stopped: marked unknown (see npm run effect -- status DATE)`,
      );
  }
  const stopping = new AbortController();
  const ctx: EffectContext = { effects, dataDir: options.dataDir, signal: stopping.signal };
  const running = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    void work.finally(() => running.delete(work)).catch(() => undefined);
    return work;
  };

  // Without its socket the stack still serves; only `npm run effect` cannot reach it (a DATA_DIR
  // path longer than a Unix socket's 107 bytes, a file system without sockets).
  const socket = exclusive
    ? await startOperatorSocket(
        options.dataDir,
        {
          effect: (command, cancel) =>
            track(runEffectCommand(command, { ...ctx, signal: AbortSignal.any([stopping.signal, cancel]) })),
          subscribers: (command) =>
            subscribersText(
              command,
              options.db,
              `${options.dataDir} (the running local stack)`,
              options.forgetKey,
            ),
          report: (request) => reportJson(request, options.db, options.timeZone),
          reportMail: (command) =>
            track(
              runReportMailCommand(command, {
                weeklyReport: backend.weeklyReport(),
                dataDir: options.dataDir,
                mailDescription: backend.mailDescription,
              }),
            ),
        },
        log,
      ).catch((error: unknown) => {
        log.warn(
          `npm run effect, npm run subscribers and npm run report cannot reach this stack (no socket in ${options.dataDir}: ${error instanceof Error ? error.message : String(error)}); stop it to run effect commands`,
        );
        return null;
      })
    : null;

  // SEND_AT: one scheduled run at a time; a day is done once nothing is queued and it is not paused.
  let timer: NodeJS.Timeout | null = null;
  let busy = false;
  const done = new Set<string>();
  const warned = new Set<string>();
  async function tick(): Promise<void> {
    if (busy || stopping.signal.aborted) return;
    busy = true;
    let date: string | null = null;
    try {
      date = await effects.dueDate();
      if (!date || done.has(date)) return;
      const output = await track(runEffectCommand({ action: "send", date, retryUnknown: false }, ctx));
      for (const line of output.trim().split("\n")) log.info(`SEND_AT ${sending.sendAt}: ${line}`);
      if (await effects.finished(date)) done.add(date);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof EditionError) || date === null)
        log.error(`SEND_AT ${sending.sendAt}: ${message}`);
      else if (!warned.has(date)) {
        warned.add(date);
        log.warn(`SEND_AT ${sending.sendAt}: ${message}; trying again each minute`);
      }
    } finally {
      busy = false;
    }
  }
  if (sending.sendAt) {
    log.info(`Effect of the Day: sent daily at ${sending.sendAt} (${options.timeZone})`);
    const first = setTimeout(() => void tick(), FIRST_TICK_MS);
    first.unref();
    timer = setInterval(() => void tick(), TICK_MS);
    timer.unref();
  }

  // The owner's weekly report: its own minute, where the stack has a schedule (SEND_AT) or an owner
  // (OWNER_EMAIL; without it the week is skipped, said once). One turn at a time here, and one
  // send a week across every process (the week's claim in the database).
  const weekly = backend.weeklyReport();
  let reporting = false;
  const reportTick = () => {
    if (reporting || stopping.signal.aborted) return;
    reporting = true;
    void track(weekly.sendIfDue()).finally(() => {
      reporting = false;
    });
  };
  const reportTimers =
    sending.sendAt || weekly.ownerEmail
      ? [setTimeout(reportTick, FIRST_TICK_MS), setInterval(reportTick, TICK_MS)]
      : [];
  for (const timer of reportTimers) timer.unref();

  return {
    /** Stops scheduling; a send in progress finishes its batch; its rest stays queued. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      for (const timer of reportTimers) clearTimeout(timer);
      stopping.abort();
      await Promise.allSettled([...running]);
      await socket?.close();
    },
  };
}
