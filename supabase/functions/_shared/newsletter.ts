/**
 * The composition root: database, mailer, configuration, log and clock go in once, and out come
 * the three newsletter functions, the mail-events function and the mail sender, wired the same for every host; `app.ts`
 * serves them over HTTP. The Deno entries and the local stack differ only in how they listen and
 * in what keeps work alive after an answer (`waitUntil`).
 *
 * Delivery has one trigger model: after every function's answer, due mail is delivered (new mail
 * and retries whose time has come), handed to the host's `waitUntil`. A host that lives between
 * requests may also call `deliverDue` on a timer (the local stack does, at `nextDueAt`).
 */
import type { NewsletterFunctions } from "./app.ts";
import type { Config } from "./config.ts";
import { fromStorage, Refusal } from "./http/answers.ts";
import type { FunctionName, FunctionSpec } from "./http/function-spec.ts";
import type { Logger } from "./logger.ts";
import type { IdentitySource } from "./contract/published.ts";
import type { SqlExecutor } from "./db/sql-executor.ts";
import type { LatestEditionSource } from "./effect-sending/edition-source.ts";
import { createWelcome } from "./effect-sending/welcome.ts";
import { createMailEvents } from "./mail-events/receive.ts";
import type { Fetch } from "./mail-events/ses.ts";
import { createMailQueue } from "./mail/mail-queue.ts";
import type { Mailer } from "./mail/mailer.ts";
import { createMailSender } from "./mail/confirmation-sender.ts";
import { createCmsAuth } from "./cms-auth/cms-auth.ts";
import { createAdminQueries } from "./subscriptions/admin-queries.ts";
import { confirmSubscription } from "./subscriptions/confirm-subscription.ts";
import { createRateLimit } from "./subscriptions/rate-limit.ts";
import { sendConfirmation } from "./subscriptions/send-confirmation.ts";
import { createSubscriptions } from "./subscriptions/subscriber-store.ts";
import { unsubscribe } from "./subscriptions/unsubscribe.ts";

export interface NewsletterDeps {
  db: SqlExecutor;
  mailer: Mailer;
  config: Config;
  /** The names the mail carries (published.ts). */
  identity: IdentitySource;
  log: Logger;
  /** The functions' clock (tests move it forward). */
  now?: () => Date;
  /** What `mail-events/ses` fetches SNS's certificates with (tests serve their own). */
  fetch?: Fetch;
  /** The newest published Effect, for the welcome mail; without it no welcome is sent. */
  latestEdition?: LatestEditionSource;
}

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
    identity: deps.identity,
    log,
    now,
    housekeeping: () => purge().then(() => undefined),
    welcome: deps.latestEdition
      ? createWelcome({
          db,
          queue,
          mailer,
          latestEdition: deps.latestEdition,
          log,
          now,
          retry: { baseSeconds: config.mailRetryBaseSeconds, maxSeconds: config.mailRetryMaxSeconds },
        })
      : undefined,
  });
  const functions: FunctionSpec[] = [
    sendConfirmation({ subscriptions, config, now }),
    confirmSubscription({ subscriptions, now }),
    unsubscribe({ subscriptions, now }),
  ];
  /** Signups per client and minute, and (generous: a household's clicks, a provider's one-click posts) link calls. */
  const perMinute = (name: FunctionName) =>
    name === "send-confirmation" ? config.rateLimitPerMinute : config.linkRateLimitPerMinute;

  const newsletter = {
    config,
    log,
    admin,
    purge,
    functions,
    mailEvents: createMailEvents({ db, config: config.mailEvents, log, now, fetch: deps.fetch }),
    cmsAuth: createCmsAuth({
      config: config.cmsAuth,
      db,
      functionsUrl: config.functionsUrl,
      siteOrigins: config.allowedOrigins,
      log,
      now,
    }),
    /** At most so many calls per client address and minute, counted before the body is read; over it, 429. */
    async admit(spec: FunctionSpec, clientAddress: string): Promise<void> {
      const decision = await fromStorage(() =>
        rateLimit.hit(spec.name, clientAddress, perMinute(spec.name), now()),
      );
      if (!decision.allowed)
        throw new Refusal(429, "rate_limited", "Too many requests. Please try again in a minute.", {
          headers: { "Retry-After": String(decision.retryAfterSeconds) },
        });
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
  return newsletter satisfies NewsletterFunctions;
}

export type Newsletter = ReturnType<typeof createNewsletter>;
