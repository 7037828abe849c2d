/**
 * The composition root: database, mailer, configuration, log and clock go in once, and out come
 * the three functions and the mail sender, wired the same for every host. The Deno entries
 * (`deno/serve-function.ts`) and the local stack (`server/app.ts`) differ only in how they listen
 * and in what keeps work alive after an answer (`waitUntil`).
 *
 * Delivery has one trigger model: after every function's answer, due mail is delivered (new mail
 * and retries whose time has come), handed to the host's `waitUntil`. A host that lives between
 * requests may also call `deliverDue` on a timer (the local stack does, at `nextDueAt`).
 */
import { createAdminQueries } from "./subscriptions/admin-queries.ts";
import type { Config } from "./config.ts";
import {
  type FunctionHandler,
  type FunctionName,
  isFunctionName,
  type RequestInfo,
  wrapFunction,
} from "./http/function-wrapper.ts";
import { confirmSubscription } from "./subscriptions/confirm-subscription.ts";
import { sendConfirmation } from "./subscriptions/send-confirmation.ts";
import { unsubscribe } from "./subscriptions/unsubscribe.ts";
import { corsHeaders, errorResponse } from "./http/responses.ts";
import type { Logger } from "./logger.ts";
import { createMailQueue } from "./mail/mail-queue.ts";
import type { Mailer } from "./mail/mailer.ts";
import { createMailSender } from "./mail/confirmation-sender.ts";
import { createRateLimit } from "./subscriptions/rate-limit.ts";
import type { SqlExecutor } from "./db/sql-executor.ts";
import { createSubscriptions } from "./subscriptions/subscriber-store.ts";

export interface NewsletterDeps {
  db: SqlExecutor;
  mailer: Mailer;
  config: Config;
  log: Logger;
  /** The functions' clock (tests move it forward). */
  now?: () => Date;
}

export interface CallInfo extends RequestInfo {
  /** Keeps work alive after the answer: `EdgeRuntime.waitUntil` on Supabase, a tracked promise on Node. */
  waitUntil?: (work: Promise<unknown>) => void;
}

/** Lets the answer leave before delivery starts competing with it for the database. */
const afterThisTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function createNewsletter(deps: NewsletterDeps) {
  const { db, mailer, config, log } = deps;
  const now = deps.now ?? (() => new Date());
  const subscriptions = createSubscriptions(db);
  const rateLimit = createRateLimit(db);
  const queue = createMailQueue(db);
  const admin = createAdminQueries(db);

  /** Deletes pending addresses that never confirmed and rate-limit windows nobody reads any more. */
  async function purge(at = now()): Promise<{ subscribers: number }> {
    const purged = await subscriptions.purgePending(at, config.purgePendingAfterDays);
    await rateLimit.purge(at);
    if (purged.subscribers > 0)
      log.info(`purged ${purged.subscribers} pending addresses that never confirmed`);
    return purged;
  }

  const sender = createMailSender({
    queue,
    mailer,
    config,
    log,
    now,
    housekeeping: () => purge().then(() => undefined),
  });
  const wrap = (spec: Parameters<typeof wrapFunction>[0]) => wrapFunction(spec, { config, log });
  const handlers: Record<FunctionName, FunctionHandler> = {
    "send-confirmation": wrap(sendConfirmation({ subscriptions, rateLimit, config, now })),
    "confirm-subscription": wrap(
      confirmSubscription({ subscriptions, rateLimit, perMinute: config.linkRateLimitPerMinute, now }),
    ),
    unsubscribe: wrap(
      unsubscribe({ subscriptions, rateLimit, perMinute: config.linkRateLimitPerMinute, now }),
    ),
  };

  return {
    config,
    admin,
    purge,
    /**
     * Answers one call of the function `name` (404 with the contract's error body for a name
     * that is not one), then delivers due mail after the answer through `info.waitUntil`.
     */
    async handle(name: string, request: Request, info: CallInfo = {}): Promise<Response> {
      if (!isFunctionName(name)) {
        info.note?.("not_found");
        return errorResponse(
          404,
          "not_found",
          `There is no function named "${name}".`,
          corsHeaders(request, config.allowedOrigins),
        );
      }
      const response = await handlers[name](request, info);
      info.waitUntil?.(afterThisTurn().then(() => sender.deliverDue()));
      return response;
    },
    /** Delivers every due job; never rejects. */
    deliverDue: () => sender.deliverDue(),
    /**
     * Frees every claim on queued mail. Only for a database one process owns (PGlite): what is
     * claimed when it starts was claimed by a process that died.
     */
    releaseAllClaims: () => queue.releaseAllClaims(),
    /** When the next queued job is due, for a host's timer. */
    nextDueAt: () => queue.nextDueAt(),
    /**
     * For shutdown: the delivery in progress ends after its current batch (later calls deliver one
     * batch at most), and this resolves once no delivery runs. Mail left over stays queued.
     */
    async stop(): Promise<void> {
      sender.finishSoon();
      await sender.idle();
    },
  };
}

export type Newsletter = ReturnType<typeof createNewsletter>;
