/**
 * The owner's weekly report mail (OWNER_EMAIL): the last full week's numbers (`week.ts`), its
 * chart drawn as a PNG (`weekly-chart.ts`), in the brand's card (`weekly-mail.ts`), through the
 * one `Mailer`. Three ways it goes out:
 *
 * - `sendNow` (`npm run report -- mail`): at once, recording nothing, so the scheduled one still goes;
 * - `preview` (`npm run report -- preview`): the mail as it would go, sent to nobody;
 * - `sendIfDue`, the schedule: on Supabase after each `send-effect` call (pg_cron, every 10 s), on
 *   the local stack each minute. From Monday at SEND_AT (08:00 without it) in the brand's time zone,
 *   the week before is due; the first call that claims it in `owner_reports`
 *   (`owner-report-store.ts`) sends it, every other call finds it claimed or sent. A claim whose
 *   process died, or whose mail was refused, is taken again after the lease (10 minutes), ten
 *   times at most. Without OWNER_EMAIL the week is recorded as skipped and the log says so once.
 *
 * On Supabase the drawing costs CPU (resvg's WebAssembly loaded, then the chart drawn: 0.2 to
 * 0.45 s on Deno 2.1.4), so a worker claims the week only while it has twice `REPORT_CPU_MS` left
 * under its ceiling; a worker that spent its budget on the Effect leaves it to the next call, which
 * the platform gives a fresh worker once the spent one retires.
 */
import { dayIn } from "../contract/calendar-day.ts";
import type { SenderIdentity } from "../contract/published.ts";
import { ConfigError, type Env, readVariable } from "../contract/variables.ts";
import type { Config } from "../config.ts";
import { type CpuClock, WORKER_CPU_CEILING_MS } from "../cpu-clock.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import type { PublishedSite } from "../effect-sending/edition-source.ts";
import { type Logger, maskEmail } from "../logger.ts";
import { mailSettings } from "../mail/list-headers.ts";
import type { Mailer, MailMessage } from "../mail/mailer.ts";
import { keyAlreadyUsed } from "../mail/smtp-failure.ts";
import { checkEmail } from "../subscriptions/email-address.ts";
import {
  createOwnerReportStore,
  OWNER_REPORT_LEASE_MS,
  OWNER_REPORT_MAX_ATTEMPTS,
} from "./owner-report-store.ts";
import { readOwnerReport } from "./report.ts";
import { dueWeek, lastFullWeek, reportDays, type ReportWeek, weekNumbers } from "./week.ts";
import { drawPng, weeklyChartSvg } from "./weekly-chart.ts";
import { chartLabels, weekLabel, weeklyReportMail } from "./weekly-mail.ts";

/** When Monday's report is due without SEND_AT, in the brand's time zone. */
export const DEFAULT_REPORT_TIME = "08:00";
/**
 * What a worker must have left under its CPU ceiling to draw and send the report: resvg's module
 * loaded (its WebAssembly inlined as base64, decoded and compiled on first use) and the chart
 * drawn and written as a PNG, 0.2 to 0.45 s of the thread's CPU on Deno 2.1.4 here
 * (test/support/deno/chart-cpu.ts), with room for the report's queries and the mail.
 */
export const REPORT_CPU_MS = 600;

/** `npm run report -- mail` without OWNER_EMAIL. */
export class OwnerEmailMissing extends Error {}

/** OWNER_EMAIL, checked as a signup's address is; null while unset. A set but unusable one stops the start. */
export function parseOwnerEmail(env: Env): string | null {
  const raw = readVariable(env, "OWNER_EMAIL");
  if (raw === undefined) return null;
  const checked = checkEmail(raw);
  if (!checked.ok) throw new ConfigError("OWNER_EMAIL must be one e-mail address, e.g. owner@example.com");
  return checked.email;
}

export interface WeeklyReportDeps {
  db: SqlExecutor;
  config: Pick<Config, "siteUrl" | "functionsUrl" | "mailFrom">;
  site: Pick<PublishedSite, "identity">;
  /** The backend's mailer for single mails, made on first use. */
  mailer(): Mailer;
  log: Logger;
  now: () => Date;
  /** OWNER_EMAIL (`parseOwnerEmail`). */
  ownerEmail: string | null;
  /** SEND_AT: the time of Monday from which the week before is due. */
  sendAt: string | null;
  /** A name for this sender's claims, unique across hosts and processes. */
  owner(): string;
  cpu?: CpuClock;
  stopping?: AbortSignal;
}

/** What one scheduled call did. */
export type ScheduledReport =
  "sent" | "not due" | "already done" | "skipped" | "claimed elsewhere" | "no CPU left" | "failed";

export interface DraftedReport {
  week: ReportWeek;
  message: MailMessage;
  /** How long the chart took: resvg's loading (0 once loaded) and the drawing, in ms. */
  chart: { loadMs: number; drawMs: number };
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** "chart drawn in 60 ms, resvg loaded in 400 ms": for the log and the commands. */
export const chartTimes = ({ loadMs, drawMs }: DraftedReport["chart"]): string =>
  `chart drawn in ${Math.round(drawMs)} ms${loadMs > 0 ? `, resvg loaded in ${Math.round(loadMs)} ms` : ""}`;

export function createWeeklyReport(deps: WeeklyReportDeps) {
  const { log, now } = deps;
  const store = createOwnerReportStore(deps.db);
  /** Weeks this process knows are sent, skipped or given up: no query for them again. */
  const settled = new Set<string>();

  async function draft(week: ReportWeek, to: string, identity: SenderIdentity): Promise<DraftedReport> {
    const settings = mailSettings(deps.config, identity);
    const report = await readOwnerReport(deps.db, {
      ...reportDays(week),
      timeZone: identity.timeZone,
      now: now(),
    });
    const numbers = weekNumbers(report, week);
    const chart = await drawPng(weeklyChartSvg(numbers, chartLabels(settings)));
    // Counted at its budget: the clock's time for the loading holds more than this thread's CPU.
    deps.cpu?.charge({ kind: "timed", ms: Math.max(REPORT_CPU_MS, chart.drawMs) });
    return {
      week,
      message: weeklyReportMail(settings, { to, numbers, chart }),
      chart: { loadMs: chart.loadMs, drawMs: chart.drawMs },
    };
  }

  async function lastWeek(): Promise<{ week: ReportWeek; identity: SenderIdentity }> {
    const identity = await deps.site.identity();
    return { week: lastFullWeek(dayIn(identity.timeZone, now())), identity };
  }

  /** Sends the claimed `week`; records the outcome on its row. */
  async function sendClaimed(
    week: ReportWeek,
    to: string,
    identity: SenderIdentity,
    claimant: string,
    attempt: number,
  ) {
    const label = weekLabel(week);
    /** Once the transport took the mail: recorded, or said plainly that it may go again. */
    const recordSent = async (note: string | null) => {
      try {
        await store.markSent(week.from, claimant, now(), note);
      } catch (error) {
        log.error(
          `weekly report of ${label} was sent but could not be recorded (${errorMessage(error)}): it goes again once its claim is ${OWNER_REPORT_LEASE_MS / 60_000} minutes old`,
        );
      }
      return "sent" as const;
    };
    let drafted: DraftedReport;
    try {
      drafted = await draft(week, to, identity);
      // Every attempt at one week is one request to an API that keeps keys (Resend): sent once.
      await deps.mailer().send({ ...drafted.message, idempotencyKey: drafted.message.reference });
    } catch (error) {
      if (keyAlreadyUsed(error)) {
        log.info(`weekly report of ${label}: an earlier attempt's mail was accepted; not sent again`);
        return recordSent("an earlier attempt's mail was accepted");
      }
      const why = errorMessage(error);
      await store.markFailed(week.from, claimant, why).catch(() => undefined);
      log.error(
        `weekly report of ${label} not sent (attempt ${attempt} of ${OWNER_REPORT_MAX_ATTEMPTS}): ${why}; ${
          attempt < OWNER_REPORT_MAX_ATTEMPTS
            ? `tried again in ${OWNER_REPORT_LEASE_MS / 60_000} minutes`
            : "given up: npm run report -- mail sends it by hand"
        }`,
      );
      return "failed" as const;
    }
    log.info(
      `weekly report of ${label} sent to ${maskEmail(to)} (attempt ${attempt}; ${chartTimes(drafted.chart)})`,
    );
    return recordSent(null);
  }

  async function scheduled(): Promise<ScheduledReport> {
    if (deps.stopping?.aborted) return "no CPU left";
    // Unreadable, the site's sender.json stops send-effect first, which says so in the log.
    const identity = await deps.site.identity().catch(() => null);
    if (!identity) return "failed";
    const at = now();
    const week = dueWeek(at, identity.timeZone, deps.sendAt ?? DEFAULT_REPORT_TIME);
    if (!week) return "not due";
    if (settled.has(week.from)) return "already done";
    if (!deps.ownerEmail) {
      if (await store.skip(week.from, at, "OWNER_EMAIL is not set"))
        log.warn(
          `weekly report of ${weekLabel(week)} not sent: OWNER_EMAIL is not set (set it to get the owner's report each Monday)`,
        );
      settled.add(week.from);
      return "skipped";
    }
    // Twice the report's cost left: the count is an estimate, and the calls the worker serves
    // meanwhile count too. So a young worker draws it; one that spent its CPU leaves it to the next.
    if (deps.cpu && deps.cpu.used() + 2 * REPORT_CPU_MS > WORKER_CPU_CEILING_MS) return "no CPU left";
    const claimant = deps.owner();
    const attempt = await store.claim(week.from, claimant, at);
    if (attempt === null) {
      const row = await store.state(week.from);
      if (row && (row.state !== "claimed" || row.attempts >= OWNER_REPORT_MAX_ATTEMPTS))
        settled.add(week.from);
      return "claimed elsewhere";
    }
    const outcome = await sendClaimed(week, deps.ownerEmail, identity, claimant, attempt);
    if (outcome === "sent") settled.add(week.from);
    return outcome;
  }

  return {
    /** OWNER_EMAIL, null while it is unset. */
    ownerEmail: deps.ownerEmail,

    /** The last full week's report as OWNER_EMAIL would get it (any address without it); sends nothing. */
    async preview(): Promise<DraftedReport> {
      const { week, identity } = await lastWeek();
      return draft(week, deps.ownerEmail ?? "owner@example.com", identity);
    },

    /** Sends the last full week's report to OWNER_EMAIL now; records nothing (Monday's still goes). */
    async sendNow(): Promise<DraftedReport & { to: string }> {
      const to = deps.ownerEmail;
      if (!to)
        throw new OwnerEmailMissing(
          "OWNER_EMAIL is not set: set it to the address the weekly report goes to (in .env, or supabase secrets set OWNER_EMAIL=...)",
        );
      const { week, identity } = await lastWeek();
      const drafted = await draft(week, to, identity);
      await deps.mailer().send(drafted.message);
      return { ...drafted, to };
    },

    /** The schedule's turn: sends the due week's report if no one has; never rejects. */
    async sendIfDue(): Promise<ScheduledReport> {
      try {
        return await scheduled();
      } catch (error) {
        log.error(`weekly report: ${errorMessage(error)}`);
        return "failed";
      }
    },
  };
}

export type WeeklyReport = ReturnType<typeof createWeeklyReport>;
