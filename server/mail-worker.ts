/**
 * Runs the mail sender in the local stack's process: right after a signup queued a mail (the
 * answer is already on its way), and again when the next retry is due. It also polls now and
 * then, because with a shared PostgreSQL another process may have queued or failed a job.
 */
import type { Logger } from "../supabase/functions/_shared/logger.ts";
import type { MailSender } from "../supabase/functions/_shared/mail-sender.ts";
import type { SubscriberStore } from "../supabase/functions/_shared/subscriber-store.ts";

const POLL_MS = 30_000;
const MIN_WAIT_MS = 20;
const AFTER_ERROR_MS = 5_000;

export function startMailWorker(
  sender: MailSender,
  store: SubscriberStore,
  log: Logger,
  /** The functions' clock, which the queue's times are in. */
  now: () => Date = () => new Date(),
) {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let cycle: Promise<void> | null = null;
  /** A signup queued a mail and its delivery has not started yet. */
  let kickPending = false;
  /** A kick arrived during a cycle: its mail may have been queued after the cycle claimed jobs. */
  let again = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(kick, Math.max(MIN_WAIT_MS, Math.min(ms, POLL_MS)));
    // The timer alone must not keep the process alive: shutdown stops the worker explicitly.
    timer.unref();
  };

  async function runCycle(): Promise<void> {
    await sender.deliverDue();
    try {
      const next = await store.nextDueAt();
      schedule(next ? next.getTime() - now().getTime() : POLL_MS);
    } catch (error) {
      log.error(
        `mail worker: cannot read the queue: ${error instanceof Error ? error.message : String(error)}`,
      );
      schedule(AFTER_ERROR_MS);
    }
  }

  function kick(): void {
    kickPending = false;
    if (stopped) return;
    // Kicks during a cycle share it and run it once more when it ends, so a mail queued after
    // the cycle claimed its jobs goes out now, not at the next poll.
    if (cycle) {
      again = true;
      return;
    }
    cycle = (async () => {
      do {
        again = false;
        await runCycle();
      } while (again && !stopped);
    })().finally(() => {
      cycle = null;
    });
  }

  schedule(0);
  return {
    /** A mail was queued: deliver it once the current answer has gone out. */
    kick: () => {
      kickPending = true;
      setImmediate(kick);
    },
    /**
     * Stops scheduling and finishes the mail in flight, including mail queued by a request that
     * was answered just before the stop (one batch). Anything left stays queued for the next start.
     */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      sender.finishSoon();
      if (cycle) await cycle;
      if (kickPending) await sender.deliverDue();
      await sender.idle();
    },
  };
}
