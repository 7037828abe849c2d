/**
 * The front door of the newsletter core: `createBackend(env, host)` parses the configuration once,
 * checks what the features it builds require on hosted Supabase, chooses the mail transport
 * (`createMailer`), builds each feature and returns the functions' app, the operator's
 * commands (the Effect's, the list's, the purge), the mail queue's delivery, and what a host calls
 * to shut down (`finishDelivery`, then `closeMail`). Every host calls it: the Deno entries
 * (`deno/serve.ts`, each with its own feature), the local stack (`server/`), the commands
 * (`scripts/`) and the benchmarks. A host differs only in what it brings (`BackendHost`): the
 * database, where the published site is read, a fallback for mail, a name for its senders, and how
 * it listens (`functionsApp`).
 *
 * Delivery has one trigger model: after every answer of a feature that queues mail, due mail is
 * delivered (new mail and retries whose time has come), handed to the host's `waitUntil`. A host
 * that lives between requests may also call `deliverDue` on a timer (the local stack does, at
 * `nextDueAt`). The owner's weekly report rides on the same schedule: after each `send-effect`
 * call (and each minute on the local stack), `weeklyReport().sendIfDue()`.
 */
import { createFunctionsApp, type FeatureRoutes, type FunctionsHost } from "./app.ts";
import { createCmsAuth } from "./cms-auth/cms-auth.ts";
import { cmsAuthRoutes } from "./cms-auth/routes.ts";
import { type Config, configWarnings, parseConfig, supabaseProjectUrl } from "./config.ts";
import { ConfigError, type Env, readVariable } from "./contract/variables.ts";
import { type CpuClock, WORKER_CPU_CEILING_MS } from "./cpu-clock.ts";
import type { SqlExecutor } from "./db/sql-executor.ts";
import { createEffectSending, type EffectSending } from "./effect-sending/effect-sending.ts";
import type { PublishedSite } from "./effect-sending/edition-source.ts";
import { effectSendingRoutes } from "./effect-sending/routes.ts";
import { parseSendingConfig } from "./effect-sending/sending-config.ts";
import { createWelcome } from "./effect-sending/welcome.ts";
import type { Logger } from "./logger.ts";
import { createMailEvents } from "./mail-events/receive.ts";
import { mailEventRoutes } from "./mail-events/routes.ts";
import type { Fetch } from "./mail-events/ses.ts";
import { createQueueDelivery } from "./mail/queue-delivery.ts";
import { createMailer } from "./mail/create-mailer.ts";
import { createDatabasePace } from "./mail/shared-pace.ts";
import { createMailQueue } from "./mail/mail-queue.ts";
import { type Mailer, meteredMailer } from "./mail/mailer.ts";
import { FEATURES, type FeatureName, hostedRequirements } from "./manifest.ts";
import { createWeeklyReport, parseOwnerEmail, type WeeklyReport } from "./report/weekly-report.ts";
import { createAdminQueries } from "./subscriptions/admin-queries.ts";
import { createRateLimit } from "./subscriptions/rate-limit.ts";
import { subscriptionRoutes } from "./subscriptions/routes.ts";
import { createSubscriberStore } from "./subscriptions/subscriber-store.ts";

export interface BackendHost {
  /** The database, open (PGlite or PostgreSQL on Node; PostgreSQL on Deno). */
  db: SqlExecutor;
  log: Logger;
  /** Where the site's build is read: sender.json, mail.json, latest.json. */
  site(config: Config): PublishedSite;
  /** The features to build; default all. A Supabase entry builds its function's only. */
  features?: readonly FeatureName[];
  /** `SITE_URL` when unset: the local stack's own address. */
  defaultSiteUrl?: string;
  /** The host's mail transport when none is configured (the outbox folder); `bulk` for the Effect's lists. */
  fallbackMailer?: (bulk: boolean) => Mailer;
  /** A name for the rows an Effect sender holds, unique across hosts, processes and runs. */
  senderName(): string;
  /** The functions' clock (tests move it forward). */
  now?: () => Date;
  /** What `mail-events/ses` fetches SNS's certificates with (tests serve their own). */
  fetch?: Fetch;
  /**
   * The worker's CPU, where the platform stops a worker at a CPU limit (Supabase): `send-effect`
   * and the mail queue claim no more work once it passes `SEND_EFFECT_CPU_MS`.
   */
  cpu?: CpuClock;
  /** Aborted when the platform is about to stop the worker (`beforeunload`): claim no more work. */
  stopping?: AbortSignal;
}

export function createBackend(env: Env, host: BackendHost) {
  const { db, log } = host;
  const features = host.features ?? FEATURES;
  const has = (feature: FeatureName) => features.includes(feature);
  const now = host.now ?? (() => new Date());

  const project = supabaseProjectUrl(env);
  const required = hostedRequirements(features);
  if (project) {
    const missing = required.variables.filter((name) => !readVariable(env, name));
    if (missing.length > 0)
      throw new ConfigError(
        `${missing.join(" and ")} must be set on Supabase (supabase secrets set ${missing.map((name) => `${name}=...`).join(" ")}); see docs/deploying.md`,
      );
  } else if (!readVariable(env, "SITE_URL") && !host.defaultSiteUrl) {
    log.warn("SITE_URL is not set: links in mail point to http://localhost:8000");
  }
  const config = parseConfig(env, host.defaultSiteUrl);
  for (const warning of configWarnings(config)) log.warn(warning);
  const sending = parseSendingConfig(env);
  const site = host.site(config);

  // Mailers are made on first use, so a backend that only reads opens no connection.
  const mailerFor = (connections?: number) => {
    let made: Mailer | undefined;
    return {
      get: () =>
        (made ??= meteredMailer(
          createMailer(env, {
            log,
            fallback: host.fallbackMailer,
            required: project !== null && required.mail,
            connections,
            pace: (name, perSecond) => createDatabasePace(db, name, perSecond),
          }),
          host.cpu?.kind === "estimate" ? host.cpu : undefined,
        )),
      /** Closes it; a later use makes a new one (a command context runs several commands). */
      close: async () => {
        const closing = made;
        made = undefined;
        await closing?.close?.();
      },
    };
  };
  const mail = mailerFor();
  const bulkMail = mailerFor(sending.maxConnections);
  // The manifest says which features send; their delivery is built (and their transport chosen,
  // so a function on Supabase without one refuses to start) here, not at the first mail.
  const sendsMail = required.mail;
  const queue = createMailQueue(db);
  const subscriptions = createSubscriberStore(db);
  const rateLimit = createRateLimit(db);

  /** Deletes pending addresses that never confirmed and rate-limit windows nobody reads any more. */
  async function purge(at = now()): Promise<{ subscribers: number }> {
    const purged = await subscriptions.purgePending(at, config.purgePendingAfterDays);
    await rateLimit.purge(at);
    if (purged.subscribers > 0)
      log.info(`purged ${purged.subscribers} pending addresses that never confirmed`);
    return purged;
  }

  /** Whether the worker may take on more work: not being stopped, and under its CPU ceiling. */
  const mayClaim = () => !host.stopping?.aborted && !(host.cpu && host.cpu.used() >= WORKER_CPU_CEILING_MS);
  const sender = sendsMail
    ? createQueueDelivery({
        mayClaim,
        queue,
        mailer: mail.get(),
        config,
        identity: site.identity,
        log,
        now,
        housekeeping: () => purge().then(() => undefined),
        welcome: createWelcome({
          db,
          queue,
          mailer: mail.get(),
          latestEdition: site.latestEdition,
          log,
          now,
          retry: { baseSeconds: config.mailRetryBaseSeconds, maxSeconds: config.mailRetryMaxSeconds },
        }),
      })
    : null;
  /** Delivers every due job; never rejects. */
  const deliverDue = async () => sender?.deliverDue();

  const effects: EffectSending | null = has("effect-sending")
    ? createEffectSending({
        db,
        config,
        sending,
        site,
        mailer: bulkMail.get,
        log,
        now,
        owner: host.senderName,
        cpu: host.cpu,
        stopping: host.stopping,
      })
    : null;

  // OWNER_EMAIL is read where the schedule runs (set but unusable: an error at start, as SEND_AT's),
  // elsewhere when the report is asked for: a signup function never needs it.
  const ownerEmail = has("effect-sending") ? parseOwnerEmail(env) : undefined;
  let weeklyReport: WeeklyReport | undefined;
  const ownerReport = () =>
    (weeklyReport ??= createWeeklyReport({
      db,
      config,
      site,
      mailer: mail.get,
      log,
      now,
      ownerEmail: ownerEmail === undefined ? parseOwnerEmail(env) : ownerEmail,
      sendAt: sending.sendAt,
      owner: host.senderName,
      cpu: host.cpu,
      stopping: host.stopping,
    }));
  /** After each send-effect call: the queue's due mail, then the owner's weekly report when it is due. */
  const afterSendEffect = async () => {
    await deliverDue();
    await ownerReport().sendIfDue();
  };

  return {
    config,
    sending,
    features,
    /** The built features' functions in one app, each at `/<name>`, for a host to serve (`Deno.serve`) or mount (`app.route`). */
    functionsApp(http: FunctionsHost) {
      const apps: FeatureRoutes[] = [];
      if (has("subscriptions"))
        apps.push(subscriptionRoutes({ subscriptions, rateLimit, config, log, now, deliverDue }, http));
      if (has("mail-events"))
        apps.push(
          mailEventRoutes(
            createMailEvents({ db, config: config.mailEvents, log, now, fetch: host.fetch }),
            config.mailEvents.dsnSecret,
            log,
          ),
        );
      if (has("cms-auth"))
        apps.push(
          cmsAuthRoutes(
            createCmsAuth({
              config: config.cmsAuth,
              db,
              functionsUrl: config.functionsUrl,
              siteUrl: config.siteUrl,
              siteOrigins: config.allowedOrigins,
              log,
              now,
            }),
            log,
          ),
        );
      if (effects) apps.push(effectSendingRoutes(effects, sending.key, afterSendEffect, http));
      return createFunctionsApp(apps, { log, allowedOrigins: config.allowedOrigins });
    },
    /** The operator's view of the list: counts and the export. */
    admin: createAdminQueries(db),
    purge,
    /** The Effect of the Day's commands; null unless the feature is built. */
    effects,
    /** The owner's weekly report: `sendNow`, `preview`, and the schedule's `sendIfDue` (OWNER_EMAIL). */
    weeklyReport: ownerReport,
    /** The mail the list gets, for the start-up log. */
    mailDescription: () => mail.get().description,
    deliverDue,
    /** When the next queued job is due, for a host's timer. */
    nextDueAt: () => queue.nextDueAt(),
    /**
     * Frees every claim on queued mail. Only for a database one process owns (PGlite): what is
     * claimed when it starts was claimed by a process that died.
     */
    releaseAllClaims: () => queue.releaseAllClaims(),
    /**
     * For shutdown: the delivery in progress ends after its current batch (later calls deliver one
     * batch at most), and this resolves once no delivery runs. Mail left over stays queued.
     */
    async finishDelivery(): Promise<void> {
      if (!sender) return;
      sender.finishSoon();
      await sender.idle();
    },
    /** Closes the mail transports (after `finishDelivery` and any send has stopped). */
    async closeMail(): Promise<void> {
      await Promise.all([mail.close(), bulkMail.close()]);
    },
  };
}

export type Backend = ReturnType<typeof createBackend>;
