/**
 * The Effect sender inside the local stack: on PGlite it first marks what a dead process left in
 * `sending` as `unknown` (one process holds the folder, so every such row is stale) and takes
 * `npm run effect` commands over its socket; with `SEND_AT=HH:MM` it sends the day's Effect by
 * itself once that time has come in the brand's time zone, and keeps trying each minute until the
 * edition is done (which also resumes a paused one).
 */
import type { Config, Env } from "../supabase/functions/_shared/config.ts";
import { createRateLimiter } from "../supabase/functions/_shared/effect-sending/delivery-decisions.ts";
import { createDeliveryStore } from "../supabase/functions/_shared/effect-sending/delivery-store.ts";
import { EditionError } from "../supabase/functions/_shared/effect-sending/edition.ts";
import {
  dueEditionDate,
  parseSendingConfig,
} from "../supabase/functions/_shared/effect-sending/sending-config.ts";
import type { Logger } from "../supabase/functions/_shared/logger.ts";
import type { SenderIdentity } from "../supabase/functions/_shared/contract/published.ts";
import type { SqlExecutor } from "../supabase/functions/_shared/db/sql-executor.ts";
import { createEffectMailer, type EffectContext, runEffectCommand } from "./effect-commands.ts";
import { startOperatorSocket } from "./effect-operator.ts";
import { subscribersText } from "./subscriber-commands.ts";

export interface EffectServiceOptions {
  db: SqlExecutor;
  /** PGlite: this process alone holds the data. */
  exclusive: boolean;
  env: Env;
  config: Config;
  identity: SenderIdentity;
  dataDir: string;
  publicDir: string;
  log: Logger;
  now?: () => Date;
}

const TICK_MS = 60_000;
const FIRST_TICK_MS = 1_000;

export async function startEffectService(options: EffectServiceOptions) {
  const { db, exclusive, log } = options;
  const now = options.now ?? (() => new Date());
  const sending = parseSendingConfig(options.env);
  const store = createDeliveryStore(db);
  if (exclusive) {
    const stale = await store.markStaleAsUnknown(now(), true);
    if (stale > 0)
      log.warn(
        `${stale} Effect mails were being sent when the last process stopped: marked unknown (see npm run effect -- status DATE)`,
      );
  }
  const stopping = new AbortController();
  const mailer = createEffectMailer({ env: options.env, dataDir: options.dataDir, sending });
  const ctx: EffectContext = {
    ...options,
    sending,
    now,
    signal: stopping.signal,
    shared: { mailer, rate: createRateLimiter(sending.ratePerSecond) },
  };
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
            subscribersText(command, options.db, `${options.dataDir} (the running local stack)`),
        },
        log,
      ).catch((error: unknown) => {
        log.warn(
          `npm run effect and npm run subscribers cannot reach this stack (no socket in ${options.dataDir}: ${error instanceof Error ? error.message : String(error)}); stop it to run effect commands`,
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
    const date = dueEditionDate(sending.sendAt, options.identity.timeZone, now());
    if (!date || busy || done.has(date) || stopping.signal.aborted) return;
    busy = true;
    try {
      const output = await track(runEffectCommand({ action: "send", date, retryUnknown: false }, ctx));
      for (const line of output.trim().split("\n")) log.info(`SEND_AT ${sending.sendAt}: ${line}`);
      const status = await store.status(date);
      if (status && status.state !== "paused" && status.counts.queued === 0) done.add(date);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof EditionError)) log.error(`SEND_AT ${sending.sendAt}: ${message}`);
      else if (!warned.has(date)) {
        warned.add(date);
        log.warn(`SEND_AT ${sending.sendAt}: ${message}; trying again each minute`);
      }
    } finally {
      busy = false;
    }
  }
  if (sending.sendAt) {
    log.info(
      `Effect of the Day: sent daily at ${sending.sendAt} (${options.identity.timeZone}) via ${mailer.description}`,
    );
    const first = setTimeout(() => void tick(), FIRST_TICK_MS);
    first.unref();
    timer = setInterval(() => void tick(), TICK_MS);
    timer.unref();
  }

  return {
    /** Stops scheduling; a send in progress finishes its batch; its rest stays queued. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      stopping.abort();
      await Promise.allSettled([...running]);
      await socket?.close();
      await mailer.close?.();
    },
  };
}
