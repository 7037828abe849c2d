/**
 * The phone's scheduler on a shared host (issue 41, item 9): while the bench drives Chromium, the
 * main thread of each renderer runs at nice RENDERER_MAIN_NICE and Chromium's other threads at
 * CHROMIUM_NICE, above the bench's own processes (Lighthouse's Node, the stacks, the HTTPS fronts)
 * at 0.
 *
 * Lighthouse's simulation multiplies each main-thread task's wall time by the CPU multiplier. On 2
 * cores the renderer's main thread shares them with Chromium's IO threads, its browser process and
 * the bench's Node, and Linux preempts it mid-task: Linux's switches recorded during Lighthouse
 * runs (`perf record -e sched:sched_switch`, set against each run's trace) had the main thread off
 * its core for about half of each long task's wall time, 78 % of that preempted (by the
 * renderer's own IO thread first: Chromium, as root, gives its IO and compositor threads nice -8
 * and its main thread 0), the rest waiting on other threads. A phone runs its foreground page's
 * main thread on a core of its own. With these priorities, and the pages' opener policy left out
 * (bench/https-front.ts), the bench's Lighthouse runs had every page within its twin + 30 ms, by
 * margins of 16 to 30 ms, on this host and as a host of index 1,200 (bench/RESULTS.md). With the
 * opener policy kept, raised renderers made Lighthouse miss the navigation's start in its trace
 * (NO_NAVSTART) in 7 of about 24 runs.
 *
 * Only Chromium is raised: processes started by this one (or by a shell it started, as Debian's
 * chromium-headless-shell is) whose executable is a Chromium, and their descendants. Chromium sets
 * a renderer's main thread to 0 or 5 as its page comes to the foreground or leaves it, so that
 * thread is raised again on each look (every `everyMs`). Threads start with their creator's
 * priority, so a browser raised as it starts has most of its later processes raised too; each
 * browser's whole tree is looked at again every 50 looks. Chromium also sets some threads itself
 * (-8 for its compositor and IO threads, 0 for some pool workers, as their work changes): those
 * keep what it sets, all below the page's main thread. A negative nice needs root, CAP_SYS_NICE or
 * an RLIMIT_NICE that allows it; when a raise is refused the watcher stops, and `stop()` says so,
 * as it does when no renderer was seen (the bench prints it, and its verdicts then follow the
 * machine's other work). `npx tsx bench/long-tasks.ts`, `npm run bench:dialog` and `npm run
 * bench:strategies` run alone without it.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The page's renderer's main thread: the highest priority Linux gives a normal thread. */
export const RENDERER_MAIN_NICE = -20;
/** Chromium's other threads: above the bench's own processes, below the page's main thread. */
export const CHROMIUM_NICE = -10;

export interface PriorityReport {
  /** Whether the priorities were set (false: not permitted, see `reason`). */
  applied: boolean;
  reason?: string;
  /** Chromium browsers and page renderers raised while the bench ran. */
  browsers: number;
  renderers: number;
}

export interface ChromiumPriority {
  stop(): PriorityReport;
}

/** A Chromium browser or headless shell, by its executable's name. */
export const CHROMIUM_EXECUTABLE = /^(chromium|chrome)(-headless-shell)?$|^headless_shell$/;

const read = (file: string): string => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return ""; // The process or thread has ended meanwhile.
  }
};
const threadsOf = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
};
/** The processes any thread of `pid` started. */
const childrenOf = (pid: number, threads = threadsOf(pid)): number[] =>
  threads.flatMap((tid) => read(`/proc/${pid}/task/${tid}/children`).split(" ").filter(Boolean).map(Number));
const executableOf = (pid: number): string => {
  try {
    return path.basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return "";
  }
};
/** A shell that starts Chromium without `exec` (Debian's chromium-headless-shell wrapper). */
const SHELL = /^(sh|dash|bash)$/;
/** This process's children, and those of its children that are shells. */
const startedHere = (): number[] =>
  childrenOf(process.pid).flatMap((child) => (SHELL.test(executableOf(child)) ? childrenOf(child) : [child]));
/**
 * Chromium's `--type=` of a process: "" for the browser itself. A forked process rewrites its
 * command line into one space-separated string.
 */
const typeOf = (pid: number): string => /[\0 ]--type=([^\0 ]+)/.exec(read(`/proc/${pid}/cmdline`))?.[1] ?? "";

/** Sets a thread's nice; false when it has ended. Throws when not permitted. */
function setNice(tid: number, nice: number): boolean {
  try {
    if (os.getPriority(tid) !== nice) os.setPriority(tid, nice);
    return true;
  } catch (error) {
    const code = (error as { info?: { code?: string } }).info?.code ?? (error as { code?: string }).code;
    if (code === "ESRCH") return false;
    throw error;
  }
}

/**
 * Raises every Chromium this process starts from now on (and any already running) until `stop()`.
 * Looks every `everyMs` for new browsers, renderers and threads.
 */
export function prioritizeChromium(everyMs = 5): ChromiumPriority {
  /** Browsers, zygotes (which start the renderers) and live renderers, each while it lives. */
  const browsers = new Set<number>();
  const zygotes = new Set<number>();
  /** Live renderers, each with the look it was found at. */
  const renderers = new Map<number, number>();
  /** The threads already given their priority, by process (dropped with the process). */
  const raised = new Map<number, Set<number>>();
  let browserCount = 0;
  let rendererCount = 0;
  let looks = 0;
  let reason: string | undefined;

  /** Whether `pid` still runs Chromium; forgotten everywhere when not (ended, or its pid reused). */
  const stillChromium = (pid: number): boolean => {
    if (CHROMIUM_EXECUTABLE.test(executableOf(pid))) return true;
    browsers.delete(pid);
    zygotes.delete(pid);
    renderers.delete(pid);
    raised.delete(pid);
    return false;
  };
  /** Every thread of `pid` and its descendants at CHROMIUM_NICE (a renderer's main thread higher). */
  const raiseTree = (pid: number): void => {
    if (!stillChromium(pid)) return;
    const type = typeOf(pid);
    if (type === "zygote") zygotes.add(pid);
    if (type === "renderer") addRenderer(pid);
    raiseThreads(pid);
    for (const child of childrenOf(pid)) raiseTree(child);
  };
  /** The threads of `pid` not yet raised. */
  const raiseThreads = (pid: number): void => {
    const done = raised.get(pid) ?? new Set<number>();
    raised.set(pid, done);
    for (const tid of threadsOf(pid)) {
      if (done.has(tid)) continue;
      const main = tid === pid && renderers.has(pid);
      if (setNice(tid, main ? RENDERER_MAIN_NICE : CHROMIUM_NICE)) done.add(tid);
    }
  };
  const addRenderer = (pid: number): void => {
    if (renderers.has(pid)) return;
    renderers.set(pid, looks);
    rendererCount += 1;
  };

  const look = (): void => {
    looks += 1;
    // Each look: new zygotes and renderers, every renderer's main thread raised again (Chromium
    // sets it back as its page comes and goes) and, while it starts, its new threads given theirs
    // (a thread the main thread starts begins at -20). Every 10th: new browsers and the older
    // renderers' new threads. Every 50th: each browser's whole tree again, for processes started
    // by a thread Chromium had set back to 0 (which also forgets ended browsers). Ended zygotes
    // and renderers are forgotten as they are met. With one browser open this process used 15 %
    // of a core over 5 s (process.cpuUsage, user and system; about 3 % of it in JavaScript, the
    // rest the kernel's /proc reads and the wake-ups), at nice 0, below Chromium.
    if (looks % 10 === 1) {
      for (const child of startedHere()) {
        if (browsers.has(child) || !CHROMIUM_EXECUTABLE.test(executableOf(child))) continue;
        browsers.add(child);
        browserCount += 1;
        raiseTree(child);
      }
    }
    if (looks % 50 === 0) for (const browser of browsers) raiseTree(browser);
    for (const zygote of zygotes) {
      const threads = threadsOf(zygote);
      if (threads.length === 0) {
        zygotes.delete(zygote);
        raised.delete(zygote);
        continue;
      }
      for (const child of childrenOf(zygote, threads)) {
        if (renderers.has(child) || zygotes.has(child)) continue;
        const type = typeOf(child);
        if (type === "renderer") addRenderer(child);
        if (type === "zygote") zygotes.add(child);
      }
    }
    for (const [renderer, found] of renderers) {
      if (!setNice(renderer, RENDERER_MAIN_NICE)) {
        renderers.delete(renderer);
        raised.delete(renderer);
        continue;
      }
      // Its threads: on every look while it starts (its first 20), then every 10th.
      if (looks - found < 20 || looks % 10 === 0) raiseThreads(renderer);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const guarded = (work: () => void): void => {
    if (reason) return;
    try {
      work();
    } catch (error) {
      reason =
        `Chromium's priority was left as it was after ${browserCount} browsers: ` +
        `${error instanceof Error ? error.message : String(error)} (a negative nice needs root, ` +
        "CAP_SYS_NICE or an RLIMIT_NICE that allows it)";
      clearInterval(timer);
    }
  };
  guarded(look);
  if (!reason) timer = setInterval(() => guarded(look), everyMs).unref();
  return {
    stop(): PriorityReport {
      clearInterval(timer);
      if (!reason && rendererCount === 0)
        reason = "No Chromium renderer was seen, so none was raised (bench/chromium-priority.ts)";
      return { applied: !reason, reason, browsers: browserCount, renderers: rendererCount };
    },
  };
}

/** One sentence for the report: what the run's Chromium ran at. */
export function priorityLine(report: PriorityReport): string {
  if (!report.applied) return `${report.reason}.`;
  return (
    `Chromium above the bench's own processes (bench/chromium-priority.ts): each page renderer's main thread at nice ` +
    `${RENDERER_MAIN_NICE}, Chromium's other threads at ${CHROMIUM_NICE} (${report.renderers} renderers in ` +
    `${report.browsers} browsers).`
  );
}
