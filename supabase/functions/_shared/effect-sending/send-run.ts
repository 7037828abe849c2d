/**
 * One sending run of an edition: claim a batch, send each mail through the transport at the one
 * global rate, record the batch's outcomes, repeat until nothing is queued, the edition pauses,
 * the run's time is up, or it is asked to stop. Shared by the local stack, the `effect` command
 * and the Supabase function.
 *
 * What a crash costs: outcomes are recorded per batch, so a sender killed mid-batch leaves that
 * batch in `sending`. Over a mail API that keeps idempotency keys (Resend), the batch is one
 * request named by its key, and the next run sends it again as the same request, which the API
 * sends once: nothing is in doubt while the key lives. Otherwise (SMTP, SES) those rows become
 * `unknown` (never sent again unless asked), so nobody gets an Effect twice, and at most one batch
 * per dead sender is in doubt.
 */
import type { MailSettings } from "../mail/list-headers.ts";
import type { Mailer } from "../mail/mailer.ts";
import { maskAddresses, maskEmail } from "../logger.ts";
import type { Logger } from "../logger.ts";
import { keyAlreadyUsed } from "../mail/smtp-failure.ts";
import { classifySendError, type MailPace } from "./delivery-decisions.ts";
import type {
  ClaimedBatch,
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryStore,
  RetryPolicy,
} from "./delivery-store.ts";
import { effectMail } from "./edition.ts";

export interface SendRunOptions {
  store: DeliveryStore;
  /** Pooled SMTP, the outbox, or the log. */
  mailer: Mailer;
  settings: MailSettings;
  log: Logger;
  rate: MailPace;
  /** This sender's name on the rows it holds: host, process, and a random part. */
  owner: string;
  batchSize: number;
  leaseSeconds: number;
  policy: RetryPolicy;
  now?: () => Date;
  /** Claim no batch after this moment (a function's time limit); the next run continues. */
  deadline?: Date;
  /**
   * Claim no batch that might take the worker past `limitMs` of CPU (`used` counts from the
   * worker's start, across its requests, as Supabase does): the run stops between batches, every
   * mail it sent recorded; the next run continues.
   */
  cpu?: { used(): number; limitMs: number };
  /** Wait for retries that are not due yet (a command that runs to the end) or leave them to the next run. */
  waitForRetries: boolean;
  /** Finish the batch in hand, then stop. */
  signal?: AbortSignal;
}

export interface SendReport {
  /** CPU the run used, and the worker's when it ended, in ms, when it was given a budget. */
  cpuMs?: number;
  workerCpuMs?: number;
  /** Why it stopped before the list was done: its time, the worker's CPU budget, or the host's stop. */
  stoppedBy?: "time" | "cpu" | "signal";
  sent: number;
  failed: number;
  retried: number;
  skipped: number;
  paused: boolean;
  /** Nothing is queued any more: every delivery is sent, failed, skipped or unknown. */
  finished: boolean;
}

const RECORD_TRIES = 3;

/** Since when a key the mail API keeps is still alive; undefined for a transport without keys. */
export const keysKeptSince = (mailer: Mailer, now: Date): Date | undefined =>
  mailer.keepsIdempotencyKeysMs ? new Date(now.getTime() - mailer.keepsIdempotencyKeysMs) : undefined;
const MAX_WAIT_MS = 5_000;
/** Batches one run keeps in flight over a batch API (Resend). */
const BATCHES_IN_FLIGHT = 2;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function sendEdition(date: string, options: SendRunOptions): Promise<SendReport> {
  const { store, mailer, settings, log, rate, owner, policy, signal } = options;
  const now = options.now ?? (() => new Date());
  const prepared = await store.edition(date);
  if (!prepared) throw new Error(`The Effect of ${date} is not prepared`);
  const edition = prepared;
  const report: SendReport = { sent: 0, failed: 0, retried: 0, skipped: 0, paused: false, finished: false };
  const timeUp = () => options.deadline !== undefined && now() >= options.deadline;
  // The next batch may cost what the dearest one so far did; before the first, a tenth of what
  // the run may use.
  const cpu = options.cpu;
  const cpuAtStart = cpu?.used() ?? 0;
  let dearestBatch = cpu ? (cpu.limitMs - cpuAtStart) / 10 : 0;
  let batchesMeasured = 0;

  // Over a batch API, two batches are in flight: while one request waits for its slot or its
  // answer, the other is claimed and rendered, so the account's rate is what limits the run.
  const inFlight = mailer.sendBatch ? BATCHES_IN_FLIGHT : 1;
  const cpuUp = () => cpu !== undefined && cpu.used() + dearestBatch * inFlight > cpu.limitMs;
  const stopped = () => {
    if (report.paused) return true;
    const by = signal?.aborted ? "signal" : timeUp() ? "time" : cpuUp() ? "cpu" : undefined;
    if (by) report.stoppedBy ??= by;
    return by !== undefined;
  };

  async function sendBatches(): Promise<void> {
    while (!stopped()) {
      const batchCpu = cpu?.used() ?? 0;
      const at = now();
      const leaseUntil = new Date(at.getTime() + options.leaseSeconds * 1000);
      const kept = keysKeptSince(mailer, at);
      // A batch left in doubt goes first, as it was; then a new one, named if the API keeps keys.
      const reclaimed = kept ? await store.reclaimInDoubt(date, owner, at, leaseUntil, kept) : null;
      const batch: ClaimedBatch =
        reclaimed && reclaimed.deliveries.length > 0
          ? reclaimed
          : await store.claim(
              date,
              owner,
              at,
              leaseUntil,
              Math.min(options.batchSize, mailer.batchSize ?? options.batchSize),
              kept ? `effect-${date}-${crypto.randomUUID()}` : null,
            );
      const { deliveries, skipped } = batch;
      if (reclaimed && reclaimed.deliveries.length > 0)
        log.info(`effect ${date}: a batch of ${deliveries.length} left in doubt is sent again under its key`);
      report.skipped += skipped;
      if (deliveries.length === 0) {
        if (skipped > 0) continue;
        if ((await store.state(date)) === "paused") {
          report.paused = true;
          break;
        }
        const due = await store.nextDueAt(date);
        if (!due) {
          // Nothing queued; a batch of another sender's may still be in doubt, under its lease.
          report.finished = !(kept && (await store.inDoubt(date, kept)));
          break;
        }
        if (!options.waitForRetries) break;
        await sleep(Math.min(MAX_WAIT_MS, Math.max(10, due.getTime() - now().getTime())), signal);
        continue;
      }

      // A slow server must not let the lease run out under a live sender.
      const renew = setInterval(
        () => {
          const until = new Date(now().getTime() + options.leaseSeconds * 1000);
          store.renewLease(owner, until).catch((error: unknown) => {
            log.warn(`effect ${date}: could not renew the lease: ${errorMessage(error)}`);
          });
        },
        (options.leaseSeconds * 1000) / 3,
      );
      const outcomes: DeliveryOutcome[] = [];
      const render = (delivery: ClaimedDelivery) =>
        effectMail(settings, edition, {
          to: delivery.recipient,
          unsubscribeToken: delivery.unsubscribeToken,
          subscriberId: delivery.subscriberId,
        });
      const fail = (delivery: ClaimedDelivery, error: unknown) => {
        const failure = classifySendError(error);
        outcomes.push({ id: delivery.id, result: failure.kind, reason: failure.reason });
        log.warn(
          `effect ${date} to ${maskEmail(delivery.recipient)} ${failure.kind === "permanent" ? "refused for good" : "failed, will retry"}: ${maskAddresses(failure.reason)}`,
        );
      };
      const one = async (delivery: ClaimedDelivery, idempotencyKey: string) => {
        await rate.take();
        try {
          await mailer.send({ ...render(delivery), reference: `effect-${delivery.id}`, idempotencyKey });
          outcomes.push({ id: delivery.id, result: "sent" });
        } catch (error) {
          fail(delivery, error);
        }
      };
      try {
        if (mailer.sendBatch && batch.batchKey) {
          // One request for the batch, paced by the API's own request rate (the database's pace,
          // RESEND_REQUESTS_PER_SECOND): a mail rate would hold a batch of 100 for 10 s at 10 a second.
          try {
            await mailer.sendBatch(
              deliveries.map((delivery) => ({ ...render(delivery), reference: `effect-${delivery.id}` })),
              batch.batchKey,
            );
            for (const delivery of deliveries) outcomes.push({ id: delivery.id, result: "sent" });
          } catch (error) {
            const reason = classifySendError(error).reason;
            if (keyAlreadyUsed(error)) {
              // Sent before in another form (the sender's names changed since): it went out once;
              // a new key would send it twice. The operator sees them as unknown.
              log.warn(
                `effect ${date}: a batch's key was used for other bytes: ${deliveries.length} mails unknown`,
              );
              for (const delivery of deliveries)
                outcomes.push({ id: delivery.id, result: "unknown", reason });
            } else if (classifySendError(error).kind === "permanent") {
              // Refused as a whole for good (one address the API will not take): nothing went out,
              // so each mail is tried on its own, and only the one at fault fails.
              await Promise.all(deliveries.map((delivery, i) => one(delivery, `${batch.batchKey}-${i}`)));
            } else {
              // No clear answer: the API may have taken it. The same request goes again under its
              // key after the backoff, and the API sends it once.
              log.warn(
                `effect ${date}: a batch of ${deliveries.length} is in doubt, sent again under its key after a pause: ${maskAddresses(reason)}`,
              );
              for (const delivery of deliveries)
                outcomes.push({ id: delivery.id, result: "in_doubt", reason });
            }
          }
        } else {
          await Promise.all(deliveries.map((delivery) => one(delivery, `effect-${delivery.id}`)));
        }
      } finally {
        clearInterval(renew);
      }
      const { paused } = await record(() => store.complete(date, owner, outcomes, now(), policy));
      if (cpu) {
        const cost = cpu.used() - batchCpu;
        dearestBatch = batchesMeasured++ === 0 ? cost : Math.max(dearestBatch, cost);
      }
      for (const outcome of outcomes) {
        if (outcome.result === "sent") report.sent += 1;
        else if (outcome.result === "permanent") report.failed += 1;
        else if (outcome.result !== "unknown") report.retried += 1;
      }
      if (paused && !report.paused) {
        report.paused = true;
        log.error(
          `effect ${date}: paused after ${policy.pauseAfter} temporary failures in a row; the next run resumes it`,
        );
      }
    }
  }
  await Promise.all(Array.from({ length: inFlight }, sendBatches));
  if (report.finished || report.paused) delete report.stoppedBy;
  if (cpu) {
    report.cpuMs = Math.round(cpu.used() - cpuAtStart);
    report.workerCpuMs = Math.round(cpu.used());
  }
  return report;
}

/**
 * The mails are out: recording that must not give up at the first database error, or their rows
 * would later be `unknown`. A few tries; then the error goes up and the rows stay in `sending`.
 */
async function record<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt === RECORD_TRIES) throw error;
      await sleep(500 * attempt);
    }
  }
}
