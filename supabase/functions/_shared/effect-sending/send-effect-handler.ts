/**
 * The `send-effect` function's handler: called every 10 s by pg_cron (through pg_net) with a
 * secret key, which its route (`routes.ts`, `ownerKey`) has checked before the call gets here.
 * Each call marks rows whose sender's lease ran out as `unknown`, prepares the day's edition once
 * SEND_AT has come in the brand's time zone (reading mail.json from SITE_URL), resumes it if it
 * was paused, and sends batches until its time is up; the next call continues.
 */
import type { Config } from "../config.ts";
import { type CpuClock, WORKER_CPU_CEILING_MS } from "../cpu-clock.ts";
import { type ErrorCode, errorBody } from "../http/answers.ts";
import type { Logger } from "../logger.ts";
import { dayIn } from "../contract/calendar-day.ts";
import { mailSettings } from "../mail/list-headers.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { IdentitySource } from "../contract/published.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import type { MailPace } from "./delivery-decisions.ts";
import { createDeliveryStore } from "./delivery-store.ts";
import { EditionError } from "./edition.ts";
import { checkEditionDate, type PublishedSite } from "./edition-source.ts";
import { NotYetDue, sendDaysEffect } from "./send-day.ts";
import { dueEditionDate, type SendingConfig } from "./sending-config.ts";

export interface SendEffectDeps {
  db: SqlExecutor;
  config: Config;
  /** What the site publishes: the names and time zone (sender.json) and each day's edition. */
  site: PublishedSite;
  /** When, and how much a call sends (its `key` is checked by the route, before the handler). */
  sending: SendingConfig;
  mailer: Mailer;
  /** The backend's one pace, shared with every other send it makes. */
  rate: MailPace;
  log: Logger;
  owner: string;
  now?: () => Date;
  /** The worker's CPU: a call stops between batches before the worker passes `sending.cpuMsPerCall`. */
  cpu?: CpuClock;
  /** Aborted when the platform is about to stop the worker (`beforeunload`): the call stops claiming. */
  stopping?: AbortSignal;
}

const json = (status: number, body: unknown) => Response.json(body, { status });

/**
 * The worker's CPU at which this call claims no more: its own budget from now, and never past the
 * worker's ceiling (the platform counts the worker's CPU across calls).
 */
const callBudget = (cpu: CpuClock, budgetMs: number) => ({
  used: () => cpu.used(),
  limitMs: Math.min(cpu.used() + budgetMs, WORKER_CPU_CEILING_MS),
});
const refuse = (status: number, code: ErrorCode, message: string) => json(status, errorBody(code, message));

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createSendEffectHandler(deps: SendEffectDeps) {
  const { db, config, sending, mailer, rate, log } = deps;
  const now = deps.now ?? (() => new Date());
  const store = createDeliveryStore(db);

  return async function handle(request: Request): Promise<Response> {
    let requested: string | undefined;
    try {
      const text = await request.text();
      const body = text.trim() ? (JSON.parse(text) as { date?: unknown }) : {};
      if (body.date !== undefined) requested = checkEditionDate(String(body.date));
    } catch (error) {
      return refuse(
        400,
        "invalid_body",
        error instanceof EditionError ? error.message : "The body must be JSON.",
      );
    }
    let identity: Awaited<ReturnType<IdentitySource>>;
    try {
      identity = await deps.site.identity();
    } catch (error) {
      log.warn(`send-effect: ${errorMessage(error)}`);
      return refuse(
        503,
        "site_unavailable",
        "The site's sender.json could not be read; the next call tries again.",
      );
    }
    const started = now();
    deps.cpu?.recalibrate();
    const date = requested ?? dueEditionDate(sending.sendAt, identity.timeZone, started);
    if (!date) return json(200, { status: "not_due", sendAt: sending.sendAt, timeZone: identity.timeZone });

    try {
      const result = await sendDaysEffect(date, {
        store,
        loadEdition: (day) => deps.site.edition(day),
        today: dayIn(identity.timeZone, started),
        mailer,
        settings: mailSettings(config, identity),
        log,
        rate,
        owner: deps.owner,
        batchSize: sending.batchSize,
        leaseSeconds: sending.leaseSeconds,
        policy: sending.retry,
        now,
        deadline: new Date(started.getTime() + sending.secondsPerCall * 1000),
        cpu: deps.cpu ? callBudget(deps.cpu, sending.cpuMsPerCall) : undefined,
        signal: deps.stopping,
        waitForRetries: false,
      });
      const report = result.run;
      await store.recordCall(date, {
        at: now().toISOString(),
        sent: report.sent,
        cpuMs: report.cpuMs ?? null,
        workerCpuMs: report.workerCpuMs ?? null,
        clock: deps.cpu?.kind ?? null,
        budgetMs: deps.cpu ? sending.cpuMsPerCall : null,
        stoppedBy: report.stoppedBy ?? null,
      });
      if (result.markedUnknown > 0)
        log.warn(`send-effect: ${result.markedUnknown} mails of a stopped sender are now unknown`);
      if (result.preparedFor !== null)
        log.info(`send-effect: prepared the Effect of ${date} for ${result.preparedFor} subscribers`);
      const state = report.paused ? "paused" : report.finished ? "done" : "sending";
      if (report.sent + report.failed + report.skipped > 0 || report.paused)
        log.info(
          `send-effect ${date}: ${report.sent} sent, ${report.failed} failed, ${report.skipped} skipped this call; ${state}`,
        );
      const clock = deps.cpu ? { kind: deps.cpu.kind, unitMs: deps.cpu.unitMs } : undefined;
      return json(200, { status: state, date, thisCall: report, clock, counts: result.status?.counts });
    } catch (error) {
      if (error instanceof EditionError) {
        log.warn(`send-effect ${date}: ${error.message}`);
        return json(200, { status: error instanceof NotYetDue ? "not_due" : "not_published", date });
      }
      log.error(`send-effect ${date}: ${errorMessage(error)}`);
      return refuse(503, "storage_unavailable", "The send could not run; the next call tries again.");
    }
  };
}
