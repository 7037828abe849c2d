/**
 * The effect-sending feature: what the operator and the scheduler do with the Effect of the Day,
 * the same on every host. `send` runs the one send-the-day's-Effect use case (`send-day.ts`),
 * `testMail` mails one address and records nothing, `preview` is the mail as a reader gets it,
 * `status` the edition's counts as text; `handle` is the `send-effect` function pg_cron calls
 * (`send-effect-handler.ts`), mounted by `routes.ts`. One pace (`MAIL_RATE_PER_SECOND`) for every
 * send this backend makes.
 */
import { dayIn } from "../contract/calendar-day.ts";
import type { Config } from "../config.ts";
import type { CpuClock } from "../cpu-clock.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import type { Logger } from "../logger.ts";
import { mailSettings } from "../mail/list-headers.ts";
import type { Mailer, MailMessage } from "../mail/mailer.ts";
import { checkEmail } from "../subscriptions/email-address.ts";
import { newToken } from "../subscriptions/tokens.ts";
import { createMailPace } from "./delivery-decisions.ts";
import { createDeliveryStore } from "./delivery-store.ts";
import { effectMail, type MailEdition } from "./edition.ts";
import type { PublishedSite } from "./edition-source.ts";
import { sendDaysEffect, type SendDayResult } from "./send-day.ts";
import { keysKeptSince } from "./send-run.ts";
import { createSendEffectHandler } from "./send-effect-handler.ts";
import { dueEditionDate, type SendingConfig } from "./sending-config.ts";
import { statusText } from "./status-text.ts";

export interface EffectSendingDeps {
  db: SqlExecutor;
  config: Config;
  sending: SendingConfig;
  site: PublishedSite;
  /** The pooled mailer for the list, made on first use. */
  mailer(): Mailer;
  log: Logger;
  now: () => Date;
  /** A name for the rows this sender holds, unique across hosts, processes and runs. */
  owner(): string;
  /** The worker's CPU, where the platform limits it (send-effect's budget, `SEND_EFFECT_CPU_MS`). */
  cpu?: CpuClock;
  /** Aborted when the platform is about to stop the worker: a call finishes its batch and stops. */
  stopping?: AbortSignal;
}

export interface SendOptions {
  /** `send --retry-unknown`: mails in doubt go out again. */
  retryUnknown: boolean;
  /** Finish the batch in hand and stop (Ctrl-C, shutdown). */
  signal?: AbortSignal;
}

export class InvalidTestAddress extends Error {}

export function createEffectSending(deps: EffectSendingDeps) {
  const { config, sending, site, log, now } = deps;
  const store = createDeliveryStore(deps.db);
  const rate = createMailPace(sending.ratePerSecond);
  const settings = async () => mailSettings(config, await site.identity());
  /** The prepared edition (what its recipients get), else the published one. */
  const editionFor = async (date: string): Promise<MailEdition> =>
    (await store.edition(date)) ?? site.edition(date);
  // Made on the first call: one owner name and one pool for every call this instance serves.
  let handler: ReturnType<typeof createSendEffectHandler> | undefined;
  const sendEffect = () =>
    (handler ??= createSendEffectHandler({
      db: deps.db,
      config,
      site,
      sending,
      mailer: deps.mailer(),
      rate,
      log,
      owner: deps.owner(),
      now,
      cpu: deps.cpu,
      stopping: deps.stopping,
    }));

  return {
    status: (date: string): Promise<string> => statusText(store, date),

    /** The mail of `date` as a reader gets it; its links carry a token that unsubscribes nobody. */
    async preview(date: string): Promise<{ subject: string; message: MailMessage }> {
      const edition = await editionFor(date);
      const message = effectMail(await settings(), edition, {
        to: "subscriber@example.com",
        unsubscribeToken: newToken(),
      });
      return { subject: edition.subject, message };
    },

    /** One test mail of `date` to `to`; nothing is recorded for the list. Returns the checked address. */
    async testMail(date: string, to: string): Promise<string> {
      const address = checkEmail(to);
      if (!address.ok) throw new InvalidTestAddress(`--to must be an e-mail address (got "${to}").`);
      const message = effectMail(await settings(), await editionFor(date), {
        to: address.email,
        unsubscribeToken: newToken(),
      });
      await deps.mailer().send({ ...message, reference: `effect-test-${date}` });
      return address.email;
    },

    /** Sends `date`'s Effect to the list until done, paused or stopped; mails nobody twice. */
    async send(date: string, options: SendOptions): Promise<SendDayResult> {
      const identity = await site.identity();
      return sendDaysEffect(date, {
        store,
        loadEdition: (day) => site.edition(day),
        today: dayIn(identity.timeZone, now()),
        retryUnknown: options.retryUnknown,
        mailer: deps.mailer(),
        settings: mailSettings(config, identity),
        log,
        rate,
        owner: deps.owner(),
        batchSize: sending.batchSize,
        leaseSeconds: sending.leaseSeconds,
        policy: sending.retry,
        now,
        waitForRetries: true,
        signal: options.signal,
      });
    },

    /** The day `SEND_AT` makes due now, or null. */
    async dueDate(): Promise<string | null> {
      return dueEditionDate(sending.sendAt, (await site.identity()).timeZone, now());
    },

    /** Rows left `sending` become `unknown`: those whose lease ran out, or all (one process holds PGlite). */
    markStaleAsUnknown: (all: boolean): Promise<number> =>
      store.markStaleAsUnknown(now(), all, keysKeptSince(deps.mailer(), now())),

    /** The `send-effect` function: one call's worth of sending, for a call its route let in with the key. */
    handle: (request: Request): Promise<Response> => sendEffect()(request),

    /** Whether an edition is finished for the day (nothing queued, not paused). */
    async finished(date: string): Promise<boolean> {
      const status = await store.status(date);
      return status !== null && status.state !== "paused" && status.counts.queued === 0;
    },
  };
}

export type EffectSending = ReturnType<typeof createEffectSending>;
