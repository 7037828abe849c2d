/**
 * How much CPU the worker has used, for a host whose platform stops a worker at a CPU limit
 * (Supabase: the worker's JavaScript thread, across every request it serves, from its boot; it
 * retires at 1 s and is stopped at 2 s). `send-effect` and the mail queue claim no more work once
 * the worker is near its budget.
 *
 * Two clocks, and the host says which it has:
 * - `process`: the runtime's own CPU clock (Node's and current Deno's `process.cpuUsage()`), used
 *   only after it is seen to advance: Supabase's Edge Runtime (Deno 2.1.4 inside) answers that call
 *   with zeros, and a clock that reads zero would let the worker run into the limit.
 * - `estimate`: where there is no such clock, the CPU is counted from the work done: the boot, each
 *   request, and each mail at its transport's cost (`MailCost`, measured on the runtime twin by
 *   `npm run bench:send-effect-cpu`). The costs are in units of a fixed piece of synchronous work
 *   (`calibrate`) timed when the worker starts, so a slower host counts each mail dearer. It is an
 *   estimate made to err high: a call sends fewer mails than it could, never more.
 */

/**
 * The most CPU (ms) a worker may have used when it claims more work: Supabase stops a worker at
 * 2,000 ms of its own CPU, across requests (edge-runtime's SUPABASE_RESOURCE_LIMIT_CPU_HARD_MS),
 * and a claimed batch must still fit under that. Each call has its own budget besides
 * (`SEND_EFFECT_CPU_MS`).
 */
export const WORKER_CPU_CEILING_MS = 1_800;

/**
 * The runtime's soft limit: a worker past 1,000 ms of CPU retires and is sent no new request
 * (edge-runtime's SUPABASE_RESOURCE_LIMIT_CPU_SOFT_MS; strategy_per_worker.rs). So a request that
 * reaches the worker says its CPU was below that when the platform routed it, and an estimate
 * higher than that is brought down to it: an estimate that errs high would otherwise hold a
 * worker that does nothing until its wall clock retires it.
 */
export const RUNTIME_CPU_SOFT_LIMIT_MS = 1_000;

export interface CpuClock {
  /** What `effect status` says the budget was counted with. */
  readonly kind: "process" | "estimate";
  /** CPU the worker has used since it started, in ms. */
  used(): number;
  /** Work the worker did, for an `estimate` (a `process` clock sees it for itself). */
  charge(work: Work): void;
  /** An estimate's calibration unit on this worker, in ms (`calibrate`). */
  readonly unitMs?: number;
  /**
   * Times the calibration unit again (an estimate; a `process` clock ignores it) and keeps the
   * dearer of the two: a send calls it as it starts, so one quick timing at the boot does not set
   * every mail's cost.
   */
  recalibrate(): void;
}

export type Work =
  | { kind: "request" }
  | { kind: "mails"; cost: MailCost | undefined; sizes: number[] }
  /** Work the worker timed itself, all of it on its own thread (the weekly report's chart): charged as it took. */
  | { kind: "timed"; ms: number };

/**
 * What mail costs a transport in CPU, in calibration units (`calibrate`): each request it makes,
 * each mail, and each KiB of a mail's text and HTML. SMTP makes a request per mail, Resend one per
 * batch of up to 100.
 */
export interface MailCost {
  perRequest: number;
  perMail: number;
  perKib: number;
}

/** A transport that says nothing of its cost is counted as the dearest measured one (SMTP's). */
const UNKNOWN_MAIL_COST: MailCost = { perRequest: 0, perMail: 10.5, perKib: 1 };
/**
 * Each request the worker answers, besides the mail it sends: routing, the database, the site's
 * names read over HTTP, the answer (send-effect's calls measured 10 to 20 ms on the twin).
 */
const REQUEST_UNITS = 40;
/**
 * A worker's boot is charged the time it took, but no more than this: the twin (Deno 2.1.4
 * transpiling TypeScript) boots and answers a first request in 240 to 310 ms of CPU; Supabase loads
 * a prebuilt bundle. A boot that waits on the network for its packages would otherwise count the
 * wait as CPU.
 */
const BOOT_CAP_MS = 400;

/** One unit of calibration: a fixed piece of string, JSON and regular-expression work. */
function calibrationWork(): number {
  let html = "";
  for (let i = 0; i < 120; i++)
    html += `<p>Line ${i} of the Effect &amp; its reader, <a href="https://example.com/effects/${i}?u={{unsubscribe_url}}">read</a></p>\n`;
  const mail = html.split("{{unsubscribe_url}}").join("https%3A%2F%2Fexample.com%2Fu%3Ft%3Dabc");
  const encoded = encodeURIComponent(mail);
  const parsed = JSON.parse(JSON.stringify({ html: mail, encoded })) as { html: string };
  return parsed.html.replace(/&amp;/g, "&").split("\n").length + encoded.length;
}

/**
 * The time (ms) one calibration unit takes on this worker now: the quickest of eight runs after a
 * warm-up, timed with `now` (a monotonic clock in ms). Synchronous work holds the thread, so a
 * run's time is its CPU time plus any moment the host gave the thread to another process; the
 * quickest run is the one least lengthened that way, as the CPU the platform counts is not.
 */
export function calibrate(now: () => number): number {
  calibrationWork();
  let quickest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 8; i++) {
    const started = now();
    calibrationWork();
    quickest = Math.min(quickest, now() - started);
  }
  return Math.max(quickest, 0.01);
}

/**
 * The runtime's CPU clock (`read` in ms since the process began), if it advances over synchronous
 * work that takes `now` at least 3 ms; null where it reads zero or stands still.
 */
export function processClock(read: () => number, now: () => number): CpuClock | null {
  const before = read();
  const started = now();
  while (now() - started < 3) calibrationWork();
  if (!(read() - before > 0)) return null;
  return { kind: "process", used: read, charge: () => undefined, recalibrate: () => undefined };
}

/**
 * The `estimate` clock: `bootMs` (the time the worker took to start, capped), then each piece of
 * work at its cost in units of `unitMs` (`calibrate`).
 */
export function estimatedClock(bootMs: number, unitMs: number, now: () => number): CpuClock {
  let used = Math.min(bootMs, BOOT_CAP_MS);
  return {
    kind: "estimate",
    get unitMs() {
      return unitMs;
    },
    used: () => used,
    recalibrate() {
      const started = now();
      unitMs = Math.max(unitMs, calibrate(now));
      // The calibration's own time is CPU too.
      used += now() - started;
    },
    charge(work) {
      if (work.kind === "request") {
        used = Math.min(used, RUNTIME_CPU_SOFT_LIMIT_MS) + REQUEST_UNITS * unitMs;
        return;
      }
      if (work.kind === "timed") {
        used += work.ms;
        return;
      }
      const cost = work.cost ?? UNKNOWN_MAIL_COST;
      const kib = work.sizes.reduce((total, size) => total + size, 0) / 1024;
      used += (cost.perRequest + cost.perMail * work.sizes.length + cost.perKib * kib) * unitMs;
    },
  };
}

/** The host's clock: the runtime's where it works, else the estimate. */
export function cpuClock(options: {
  /** The runtime's CPU clock in ms, if it has one (`process.cpuUsage`). */
  processCpu?: () => number;
  /** A monotonic clock in ms since the worker started (`performance.now`). */
  now: () => number;
}): CpuClock {
  const bootMs = options.now();
  const trusted = options.processCpu ? processClock(options.processCpu, options.now) : null;
  return trusted ?? estimatedClock(bootMs, calibrate(options.now), options.now);
}
