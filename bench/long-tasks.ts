/**
 * The longest main-thread task after the first paint: each page opened cold (a fresh Chromium) at
 * phone size with the CPU slowed to the bench's phone (CDP `Emulation.setCPUThrottlingRate` at the
 * calibrated rate, bench/cpu.ts), no input, watched by a `PerformanceObserver` for `longtask`
 * entries (tasks over 50 ms) from before the page's first byte, until its scripts have started,
 * React has taken the page over and nothing has been busy for QUIET_MS. The watch asks the page
 * only through small `Runtime.evaluate` expressions: Playwright's own helpers (`waitForFunction`)
 * put its injected script in the page first, one task of 100 to 180 ms on that CPU after the first
 * paint, on the twin as on ours. Pages are measured interleaved (ours, its twin, ours, its
 * twin...) and the medians compared: what a visitor's tap could wait behind while the page reads
 * as ready. `npx tsx bench/long-tasks.ts` measures the built site's three kinds of page and their
 * twins on their own (`BENCH_RUNS` runs each; `--host-index`, `--multiplier` as for `npm run
 * bench`); `npm run bench` measures them with the rest.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CDPSession, Page } from "playwright-core";
import { buildSiteIfStale } from "../scripts/site-build";
import { readNumberVariable } from "../supabase/functions/_shared/contract/variables";
import { ROOT, startStack } from "../test/support/stack";
import { calibrateCpu, type CpuThrottling } from "./cpu";
import { median } from "./stats";
import { writeTwin } from "./twin";
import { launchChromium, VIEWPORTS } from "../test/support/browser";

/**
 * Runs per page. A twin, which runs no script, had a long task after its first paint in 1 to 2 of
 * 5 runs on a 2-core host at 6.4x (bench/RESULTS.md, 2026-11-29): with 5 runs one run flipped the
 * median. With 9, a page needs a long task in 5 runs for its median to show one.
 */
export const LONG_TASK_RUNS = 9;
/** The most the longest task after the first paint may exceed the twin's (issue 29). */
export const TARGET_LONG_TASK_EXTRA_MS = 30;
/** How long the page must be quiet (no long task, no request) before the watch ends. */
export const QUIET_MS = 1_500;
/** The longest a watch lasts after `load`. */
const WATCH_LIMIT_MS = 20_000;

export interface TaskEntry {
  startTime: number;
  duration: number;
}

export interface TasksAfterPaint {
  /** The longest task that started at or after the first paint, in ms (0: none over 50 ms). */
  longestMs: number;
  /** How many long tasks started at or after the first paint. */
  count: number;
  /** Their time over 50 ms each, summed: the blocking time they add after the first paint. */
  blockingMs: number;
  /** Those tasks, when each began and how long it took (for the log). */
  after: TaskEntry[];
}

/**
 * The long tasks that start at or after `firstPaintMs`: the longest, how many, and the blocking
 * time they add (each one's time over 50 ms, as Lighthouse counts Total Blocking Time). A task
 * that began before the first paint held it back rather than followed it, and is left out.
 */
export function tasksAfterPaint(tasks: TaskEntry[], firstPaintMs: number): TasksAfterPaint {
  const after = tasks.filter((task) => task.startTime >= firstPaintMs);
  return {
    longestMs: after.reduce((longest, task) => Math.max(longest, task.duration), 0),
    count: after.length,
    blockingMs: after.reduce((sum, task) => sum + Math.max(0, task.duration - 50), 0),
    after,
  };
}

/**
 * The order of `runs` rounds over `keys`: each round visits every page once, starting one page
 * later than the round before, so that no page always runs first (ours, twin, then twin, ours...).
 */
export function interleaved<Key>(keys: Key[], runs: number): Key[] {
  const order: Key[] = [];
  for (let round = 0; round < runs; round += 1) {
    for (let step = 0; step < keys.length; step += 1) order.push(keys[(round + step) % keys.length]);
  }
  return order;
}

export interface LongTaskVerdict {
  met: boolean;
  limitMs: number;
  detail: string;
}

/** Our longest task after the first paint (median) against the twin's + TARGET_LONG_TASK_EXTRA_MS. */
export function longTaskVerdict(oursMs: number, twinMs: number): LongTaskVerdict {
  const limitMs = twinMs + TARGET_LONG_TASK_EXTRA_MS;
  const met = oursMs <= limitMs;
  return {
    met,
    limitMs,
    detail:
      `${Math.round(oursMs)} ms vs limit ${Math.round(limitMs)} ms (the twin ${Math.round(twinMs)} ms)` +
      (met ? "" : `, ${Math.round(oursMs - limitMs)} ms over`),
  };
}

export interface LongTaskRun extends TasksAfterPaint {
  firstPaintMs: number;
  /** When the watch ended, from navigation start. */
  watchedMs: number;
}

/** Installed before any of the page's own code: collects every long task into `window.__longTasks`. */
const OBSERVE = `(() => {
  const tasks = (window.__longTasks = []);
  window.__lastBusy = 0;
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        tasks.push({ startTime: entry.startTime, duration: entry.duration });
        window.__lastBusy = Math.max(window.__lastBusy, entry.startTime + entry.duration);
      }
    }).observe({ type: "longtask", buffered: true });
  } catch (error) {}
})();`;

/**
 * Whether the page's scripts have nothing left to do: a page that holds Gatsby's scripts (the
 * `<template id="gatsby-scripts">`) once React has taken it over, a page without them (the twin)
 * once it has loaded. An expression, evaluated as it is.
 */
const SCRIPTS_SETTLED = `document.readyState === "complete" &&
  (!document.getElementById("gatsby-scripts") ||
    Object.keys(document.getElementById("gatsby-focus-wrapper") || {}).some((key) => key.startsWith("__reactFiber")))`;

/** What the page's expression gives, asked through CDP alone (see the opening comment). */
async function pageValue<Value>(cdp: CDPSession, expression: string): Promise<Value> {
  const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", {
    expression,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.text}`);
  return result.value as Value;
}

async function untilQuiet(page: Page, cdp: CDPSession): Promise<number> {
  const deadline = Date.now() + WATCH_LIMIT_MS;
  while (!(await pageValue<boolean>(cdp, SCRIPTS_SETTLED))) {
    if (Date.now() > deadline)
      throw new Error(`The page's scripts did not settle within ${WATCH_LIMIT_MS} ms`);
    await page.waitForTimeout(100);
  }
  let lastRequest = Date.now();
  page.on("request", () => (lastRequest = Date.now()));
  page.on("requestfinished", () => (lastRequest = Date.now()));
  for (;;) {
    await page.waitForTimeout(250);
    const sinceBusy = await pageValue<number>(cdp, "performance.now() - window.__lastBusy");
    if ((sinceBusy >= QUIET_MS && Date.now() - lastRequest >= QUIET_MS) || Date.now() > deadline) {
      return pageValue<number>(cdp, "performance.now()");
    }
  }
}

/** One cold visit to `url` with the CPU slowed to `cpu.rate`: its long tasks after the first paint. */
export async function longTaskRun(url: string, cpu: CpuThrottling): Promise<LongTaskRun> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: VIEWPORTS.mobile });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpu.rate });
    await page.addInitScript(OBSERVE);
    await page.goto(url, { waitUntil: "load" });
    const watchedMs = await untilQuiet(page, cdp);
    const { tasks, firstPaintMs } = await pageValue<{ tasks: TaskEntry[]; firstPaintMs: number }>(
      cdp,
      `({
        tasks: window.__longTasks,
        firstPaintMs:
          (performance.getEntriesByName("first-paint")[0] ||
            performance.getEntriesByName("first-contentful-paint")[0] || { startTime: 0 }).startTime,
      })`,
    );
    return { ...tasksAfterPaint(tasks, firstPaintMs), firstPaintMs, watchedMs };
  } finally {
    await browser.close();
  }
}

export interface LongTaskPage<Key extends string> {
  key: Key;
  label: string;
  url: string;
}

export interface LongTaskSummary {
  runs: LongTaskRun[];
  medianLongestMs: number;
  medianBlockingMs: number;
}

const summarise = (runs: LongTaskRun[]): LongTaskSummary => ({
  runs,
  medianLongestMs: median(runs.map((run) => run.longestMs)),
  medianBlockingMs: median(runs.map((run) => run.blockingMs)),
});

/** Every page `runs` times, interleaved (see `interleaved`), summarised by page. */
export async function measureLongTasks<Key extends string>(
  pages: Array<LongTaskPage<Key>>,
  cpu: CpuThrottling,
  runs = LONG_TASK_RUNS,
  onRun: (label: string, run: LongTaskRun) => void = () => undefined,
): Promise<Record<Key, LongTaskSummary>> {
  const byKey = Object.fromEntries(pages.map((page) => [page.key, [] as LongTaskRun[]])) as Record<
    Key,
    LongTaskRun[]
  >;
  for (const page of interleaved(pages, runs)) {
    const run = await longTaskRun(page.url, cpu);
    byKey[page.key].push(run);
    onRun(`${page.label} ${byKey[page.key].length}/${runs}`, run);
  }
  return Object.fromEntries(pages.map((page) => [page.key, summarise(byKey[page.key])])) as Record<
    Key,
    LongTaskSummary
  >;
}

export const longTaskLine = (run: LongTaskRun): string =>
  `longest ${Math.round(run.longestMs)} ms, ${run.count} long tasks, ${Math.round(run.blockingMs)} ms blocking ` +
  `after first paint at ${Math.round(run.firstPaintMs)} ms` +
  (run.after.length
    ? ` (${run.after.map((task) => `${Math.round(task.duration)} ms at ${Math.round(task.startTime)}`).join(", ")})`
    : "");

/** The built site's landing page, newest Effect and archive, each beside its twin, on local stacks. */
async function main(): Promise<void> {
  const runs = readNumberVariable(process.env, "BENCH_RUNS");
  const cpu = await calibrateCpu();
  buildSiteIfStale();
  const twin = writeTwin(path.join(ROOT, "public"), path.join(ROOT, "bench", ".tmp", "twin"));
  const [site, twinSite] = await Promise.all([startStack(), startStack({ PUBLIC_DIR: twin.dir })]);
  try {
    const feed = JSON.parse(readFileSync(path.join(ROOT, "public", "effects", "feed.json"), "utf8")) as {
      items: Array<{ url: string }>;
    };
    const effectPath = feed.items[0] ? new URL(feed.items[0].url).pathname : null;
    const paths = [
      ["landing", "/"],
      ["archive", "/effects/"],
      ...(effectPath ? [["Effect page", effectPath]] : []),
    ];
    const pages = paths.flatMap(([label, pathname]) => [
      { key: label, label, url: `${site.url}${pathname}` },
      { key: `${label} twin`, label: `${label}'s twin`, url: `${twinSite.url}${pathname}` },
    ]);
    console.log(`Long tasks after the first paint, CPU ${cpu.rate}x slower, ${runs} runs each...`);
    const summaries = await measureLongTasks(pages, cpu, runs, (label, run) =>
      console.log(`  ${label}: ${longTaskLine(run)}`),
    );
    for (const [label] of paths) {
      const ours = summaries[label];
      const theirs = summaries[`${label} twin`];
      console.log(
        `${label}: longest task ${longTaskVerdict(ours.medianLongestMs, theirs.medianLongestMs).detail}; ` +
          `blocking after first paint ${Math.round(ours.medianBlockingMs)} ms (the twin ${Math.round(theirs.medianBlockingMs)} ms)`,
      );
    }
  } finally {
    await Promise.all([site.stop(), twinSite.stop()]);
    twin.remove();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
