/**
 * Delivers queued mail jobs (the confirmation, its reminder, and through `welcome` the welcome
 * mail): claims due jobs, renders each mail, hands it to a transport, and
 * records the result. A failure is retried with backoff, so an SMTP outage delays a confirmation
 * mail but never loses it; a job whose link has expired meanwhile is abandoned (and logged),
 * because its link would no longer work. This is the only "run once more" loop: every trigger
 * (after an answer, a retry timer) calls `deliverDue`.
 */
import type { Config } from "../config.ts";
import { maskEmail } from "../logger.ts";
import type { Logger } from "../logger.ts";
import type { MailJob, MailQueue } from "./mail-queue.ts";
import { keyAlreadyUsed, smtpFailureKind } from "./smtp-failure.ts";
import { retryDelaySeconds } from "../subscriptions/lifecycle.ts";
import type { IdentitySource } from "../contract/published.ts";
import { confirmationMail } from "./confirmation-mail.ts";
import { type MailSettings, mailSettings } from "./list-headers.ts";
import type { Mailer } from "./mailer.ts";

export interface QueueDeliveryDeps {
  queue: MailQueue;
  mailer: Mailer;
  config: Config;
  /** The names the mail carries, read once per run. */
  identity: IdentitySource;
  log: Logger;
  now: () => Date;
  /** Work that rides on the sender now and then (the purge); its failure is logged like a run's. */
  housekeeping?: () => Promise<void>;
  /**
   * Whether the host may take on another batch (a worker near its CPU budget, or about to be
   * stopped, may not): checked before each claim; the jobs left wait for the next run.
   */
  mayClaim?: () => boolean;
  /** Delivers a `welcome` job (the effect-sending folder's welcome); without it, welcome jobs are abandoned. */
  welcome?: { deliver(job: MailJob, settings: MailSettings): Promise<void> };
}

/** Jobs per claim, and claims per run: one run is bounded; the next kick continues. */
const BATCH = 10;
const MAX_BATCHES_PER_RUN = 50;
/**
 * How long a claimed job is reserved for this sender before another may take it over, and how
 * often a sender renews that lease while it is still sending. Short, so the jobs a crashed
 * process held go out within seconds of their lease running out; renewed, so a slow SMTP server
 * does not let a second sender take a job that is still being sent.
 */
const LEASE_SECONDS = 10;
const RENEW_EVERY_MS = 3_000;
const PURGE_EVERY_MS = 3_600_000;

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createQueueDelivery(deps: QueueDeliveryDeps) {
  const { queue, mailer, config, log, now } = deps;
  let running: Promise<void> | null = null;
  let rerun = false;
  let lastPurge = 0;
  /** Shutting down: finish the batch in hand, start no other. */
  let stopping = false;

  async function deliver(job: MailJob, settings: MailSettings): Promise<void> {
    if (job.kind === "welcome") {
      if (deps.welcome) return deps.welcome.deliver(job, settings);
      await queue.abandon(job.id, "This sender has no welcome mail");
      return;
    }
    let payload = job.payload;
    if (job.kind === "reminder") {
      // The reminder's link is made now: the signup may have been confirmed meanwhile.
      payload = await queue.startReminder(job, now(), config.confirmTokenTtlHours);
      if (!payload) {
        await queue.abandon(job.id, "Nothing to remind of: confirmed, unsubscribed or refused mail since");
        return;
      }
    }
    if (!payload) {
      await queue.abandon(job.id, "The job has no payload");
      log.error(`mail job ${job.id} abandoned: no payload`);
      return;
    }
    const expiresAt = new Date(payload.expiresAt);
    if (expiresAt.getTime() <= now().getTime()) {
      await queue.abandon(job.id, "The confirmation link expired before the mail could be sent");
      log.error(
        `mail job ${job.id} to ${maskEmail(job.recipient)} abandoned after ${job.attempts - 1} failed attempts: its link expired`,
      );
      return;
    }
    const message = confirmationMail(settings, {
      to: job.recipient,
      confirmToken: payload.confirmToken,
      unsubscribeToken: payload.unsubscribeToken,
      expiresAt,
      reminder: job.kind === "reminder",
      subscriberId: job.subscriberId,
    });
    try {
      // A confirmation's links are fixed when it is queued, so every attempt is the same mail; a
      // reminder's are made per attempt.
      const idempotencyKey =
        job.kind === "reminder" ? `mail-job-${job.id}-${job.attempts}` : `mail-job-${job.id}`;
      await mailer.send({ ...message, idempotencyKey });
    } catch (error) {
      const reason = errorMessage(error);
      if (keyAlreadyUsed(error)) {
        // A request with this job's key was accepted before (its answer lost): the mail is out.
        await queue.markSent(job.id, now());
        log.warn(`mail to ${maskEmail(job.recipient)} was accepted on an earlier try; not sent again`);
        return;
      }
      if (smtpFailureKind(error) === "permanent") {
        // Trying again would be refused again (and look like abuse to the provider).
        await queue.abandonUndeliverable(job.id, reason, now());
        log.warn(`mail to ${maskEmail(job.recipient)} refused for good, not retried: ${reason}`);
        return;
      }
      const delay = retryDelaySeconds(job.attempts, config.mailRetryBaseSeconds, config.mailRetryMaxSeconds);
      await queue.scheduleRetry(job.id, reason, new Date(now().getTime() + delay * 1000));
      log.warn(
        `mail to ${maskEmail(job.recipient)} failed (attempt ${job.attempts}), retrying in ${delay}s: ${reason}`,
      );
      return;
    }
    // The mail is out: recording that must not fail the run, or the job would unlock and go out
    // twice. A few tries; if the database stays away, the log says what happened.
    for (let attempt = 1; ; attempt++) {
      try {
        await queue.markSent(job.id, now());
        break;
      } catch (error) {
        if (attempt === 3) {
          log.error(
            `mail job ${job.id} was sent but could not be marked sent; it may go out again: ${errorMessage(error)}`,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    }
    log.info(`mail sent to ${maskEmail(job.recipient)} via ${mailer.description}`);
  }

  async function run(): Promise<void> {
    // Before any job is claimed: without the names (the site unreachable) nothing is attempted.
    const settings = mailSettings(config, await deps.identity());
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !(stopping && batch > 0); batch++) {
      if (deps.mayClaim && !deps.mayClaim()) break;
      const at = now();
      const jobs = await queue.claimDue(at, new Date(at.getTime() + LEASE_SECONDS * 1000), BATCH);
      if (jobs.length === 0) break;
      const renewal = setInterval(() => {
        const until = new Date(now().getTime() + LEASE_SECONDS * 1000);
        queue
          .renewClaims(
            jobs.map((job) => job.id),
            until,
          )
          .catch((error: unknown) => log.warn(`mail sender: lease not renewed: ${errorMessage(error)}`));
      }, RENEW_EVERY_MS);
      // One failing job must not stop the others: each is settled on its own, and a run only ends
      // (for shutdown, too) once every send it started has.
      const settled = await Promise.allSettled(jobs.map((job) => deliver(job, settings))).finally(() =>
        clearInterval(renewal),
      );
      for (const outcome of settled) {
        // The job stays queued (or locked until it may be taken over) and is tried again.
        if (outcome.status === "rejected") log.error(`mail sender: ${errorMessage(outcome.reason)}`);
      }
    }
    if (deps.housekeeping && Date.now() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = Date.now();
      await deps.housekeeping();
    }
  }

  return {
    /**
     * Delivers every due job; never rejects (a failed run is logged, its jobs stay queued).
     * Calls while a run is in progress join it and cause one more run, so a job queued during
     * a run is not left waiting for the next timer.
     */
    deliverDue(): Promise<void> {
      if (running) {
        rerun = true;
        return running;
      }
      running = (async () => {
        try {
          do {
            rerun = false;
            await run();
          } while (rerun && !stopping);
        } catch (error) {
          // The jobs stay queued in the database; the next run (timer or request) picks them up.
          log.error(`mail sender: ${errorMessage(error)}`);
        } finally {
          running = null;
        }
      })();
      return running;
    },
    /**
     * For shutdown: the run in progress ends after its current batch, and later calls deliver one
     * batch at most, so a stop waits for a few mails, never for a whole backlog; the rest stays queued.
     */
    finishSoon(): void {
      stopping = true;
    },
    /** Resolves when no run is in progress (for shutdown). */
    async idle(): Promise<void> {
      while (running) await running;
    },
  };
}

export type QueueDelivery = ReturnType<typeof createQueueDelivery>;
