/**
 * The local stack's part in delivery: it is the host's `waitUntil` (work after an answer is
 * tracked, so shutdown can wait for it) and a timer that calls the sender again when the next
 * retry is due. It also polls now and then, because with a shared PostgreSQL another process may
 * have queued or failed a job. Delivery itself, and its "run once more", is the core's sender.
 */
import type { Backend, Logger } from "../supabase/functions/_shared/hosts.ts";

const POLL_MS = 30_000;
const MIN_WAIT_MS = 20;
const AFTER_ERROR_MS = 5_000;

export function startRetryTimer(
  backend: Pick<Backend, "deliverDue" | "nextDueAt" | "finishDelivery">,
  log: Logger,
  /** The functions' clock, which the queue's times are in. */
  now: () => Date = () => new Date(),
) {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const pending = new Set<Promise<unknown>>();

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => track(backend.deliverDue()), Math.max(MIN_WAIT_MS, Math.min(ms, POLL_MS)));
    // The timer alone must not keep the process alive: shutdown stops it explicitly.
    timer.unref();
  };

  async function reschedule(): Promise<void> {
    try {
      const next = await backend.nextDueAt();
      schedule(next ? next.getTime() - now().getTime() : POLL_MS);
    } catch (error) {
      log.error(
        `mail delivery: cannot read the queue: ${error instanceof Error ? error.message : String(error)}`,
      );
      schedule(AFTER_ERROR_MS);
    }
  }

  /** Every delivery, whoever started it, ends by setting the timer for the next due job. */
  function track(work: Promise<unknown>): void {
    const done = work.then(reschedule);
    pending.add(done);
    void done.finally(() => pending.delete(done));
  }

  schedule(0);
  return {
    waitUntil: track,
    /**
     * Stops the timer and finishes the delivery in flight, including mail queued by a request
     * answered just before the stop (one batch). Anything left stays queued for the next start.
     */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      const stopping = backend.finishDelivery();
      while (pending.size > 0) await Promise.all(pending);
      await stopping;
      await backend.finishDelivery();
    },
  };
}
