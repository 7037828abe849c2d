/**
 * What `npm run bench` measures in Chromium on the built site: Lighthouse on each kind of page
 * beside its no-JavaScript twin (bench/twin.ts) and the landing page's text ceiling
 * (bench/ceiling-page.ts), each served by a local stack of its own behind an HTTPS front
 * (bench/https-front.ts); the longest task after the first paint (bench/long-tasks.ts); the first
 * tap on a phone (bench/first-tap.ts). All on the one calibrated CPU (bench/cpu.ts). The stacks
 * and the copies are gone when it returns.
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ROOT, startStack } from "../test/support/stack";
import { writeCeilingPage } from "./ceiling-page";
import type { CpuThrottling } from "./cpu";
import { measureFirstTap, phoneDescription, TAP_RUNS, type TapResult } from "./first-tap";
import { ms } from "./format";
import { startHttpsFront } from "./https-front";
import { compare, RUNS, type MeasuredPage, type Run } from "./lighthouse";
import { LONG_TASK_RUNS, longTaskLine, measureLongTasks, type LongTaskSummary } from "./long-tasks";
import type { Skippable } from "./pieces";
import { summarise } from "./run-summary";
import { writeTwin } from "./twin";

/** The archive of the Effects of the Day, built even before the first one. */
export const ARCHIVE_PATH = "/effects/";

export type PageKey = "landing" | "twin" | "ceiling" | "effect" | "effectTwin" | "archive" | "archiveTwin";

/** Each page's runs summed up (bench/run-summary.ts); an Effect's page only once one is published. */
export interface PageSummaries {
  landing: Run;
  twin: Run;
  ceiling: Run;
  effect: Run | null;
  effectTwin: Run | null;
  archive: Run;
  archiveTwin: Run;
}

export interface PageMeasures {
  /** How the twin was made: its HTML files and what was taken out of them. */
  twin: { htmlFiles: number; removed: number };
  ceilingTextChars: number;
  /** The newest Effect's page, or null before the first one. */
  effectPath: string | null;
  runs: Record<PageKey, Run[]>;
  summary: PageSummaries;
  longTasks: Record<PageKey, LongTaskSummary> | null;
  /** None when `BENCH_SKIP` left the tap out. */
  taps: TapResult[];
}

/** The newest Effect the build published (its feed's first item), or null before the first one. */
function newestEffectPath(): string | null {
  const feed = JSON.parse(readFileSync(path.join(ROOT, "public", "effects", "feed.json"), "utf8")) as {
    items: Array<{ url: string }>;
  };
  return feed.items[0] ? new URL(feed.items[0].url).pathname : null;
}

export async function measurePages(skip: ReadonlySet<Skippable>, cpu: CpuThrottling): Promise<PageMeasures> {
  const ceilingDir = path.join(__dirname, ".tmp", "ceiling");
  const ceilingTextChars = writeCeilingPage(ceilingDir);
  const twin = writeTwin(path.join(ROOT, "public"), path.join(__dirname, ".tmp", "twin"));
  console.log(
    `The twin: ${twin.removed} scripts, preloads and handlers taken out of ${twin.htmlFiles} HTML files.`,
  );
  // Every page is served by the local stack's own code (and headers), so the pages alone differ.
  const [site, twinSite, ceilingSite] = await Promise.all([
    startStack(),
    startStack({ PUBLIC_DIR: twin.dir }),
    startStack({ PUBLIC_DIR: ceilingDir }),
  ]);
  // Lighthouse loads each page as the host serves it, over HTTPS and HTTP/2, but without the
  // opener policy whose process swap made its blocking time follow the machine (bench/https-front.ts).
  const [front, twinFront, ceilingFront] = await Promise.all(
    [site, twinSite, ceilingSite].map((stack) => startHttpsFront(stack.url, { dropOpenerPolicy: true })),
  );
  const effectPath = newestEffectPath();
  let runs: Record<PageKey, Run[]>;
  let taps: TapResult[] = [];
  let longTasks: Record<PageKey, LongTaskSummary> | null = null;
  try {
    // Each of the site's kinds of page, and the same page of the twin: over HTTPS for Lighthouse,
    // straight from the stacks for the long tasks (no network simulated there).
    const pagesOn = (landing: string, twin: string, ceiling: string): Array<MeasuredPage<PageKey>> => [
      { key: "landing", label: "landing", url: `${landing}/` },
      { key: "twin", label: "twin", url: `${twin}/` },
      { key: "ceiling", label: "ceiling", url: `${ceiling}/` },
      { key: "archive", label: "archive", url: `${landing}${ARCHIVE_PATH}` },
      { key: "archiveTwin", label: "archive's twin", url: `${twin}${ARCHIVE_PATH}` },
      ...(effectPath
        ? [
            { key: "effect" as const, label: "Effect page", url: `${landing}${effectPath}` },
            { key: "effectTwin" as const, label: "Effect page's twin", url: `${twin}${effectPath}` },
          ]
        : []),
    ];
    const pages = pagesOn(front.url, twinFront.url, ceilingFront.url);
    console.log(
      `Lighthouse, mobile, simulated throttling, CPU ${cpu.multiplier}x, over HTTPS and HTTP/2, ${RUNS} runs each ` +
        `(about ${Math.round((RUNS * pages.length * 16) / 60)} min)...`,
    );
    const measured = await compare(pages, cpu, RUNS, (label, run) =>
      console.log(`  ${label}: performance ${run.performance}, LCP ${ms(run.lcpMs)}, TBT ${ms(run.tbtMs)}`),
    );
    // Without a published Effect the loop never ran one.
    runs = { ...measured, effect: measured.effect ?? [], effectTwin: measured.effectTwin ?? [] };
    const benchmarkIndexes = Object.values(measured).flatMap((pageRuns) =>
      pageRuns.map((run) => run.benchmarkIndex),
    );
    console.log(
      `Lighthouse's benchmark index: median ${Math.round(summarise(runs.landing).benchmarkIndex)} ` +
        `(${Math.round(Math.min(...benchmarkIndexes))}-${Math.round(Math.max(...benchmarkIndexes))}).`,
    );
    const longTaskPages = pagesOn(site.url, twinSite.url, ceilingSite.url).filter(
      (page) => page.key !== "ceiling",
    );
    console.log(
      `\nThe longest task after the first paint, CPU ${cpu.rate}x slower, cold, no input, ` +
        `${LONG_TASK_RUNS} runs each (bench/long-tasks.ts)...`,
    );
    longTasks = (await measureLongTasks(longTaskPages, cpu, LONG_TASK_RUNS, (label, run) =>
      console.log(`  ${label}: ${longTaskLine(run)}`),
    )) as Record<PageKey, LongTaskSummary>;
    if (!skip.has("tap")) {
      console.log(
        `\nThe first tap on a phone (${phoneDescription(cpu)}), ${TAP_RUNS} cold visits per delay...`,
      );
      taps = await measureFirstTap([{ label: "landing", url: `${site.url}/` }], cpu, TAP_RUNS, (line) =>
        console.log(`  ${line}`),
      );
    }
  } finally {
    await Promise.all([front.stop(), twinFront.stop(), ceilingFront.stop()]);
    await Promise.all([site.stop(), twinSite.stop(), ceilingSite.stop()]);
    rmSync(ceilingDir, { recursive: true, force: true });
    twin.remove();
  }
  const summaryOf = (key: PageKey) => (runs[key].length > 0 ? summarise(runs[key]) : null);
  return {
    twin: { htmlFiles: twin.htmlFiles, removed: twin.removed },
    ceilingTextChars,
    effectPath,
    runs,
    summary: {
      landing: summarise(runs.landing),
      twin: summarise(runs.twin),
      ceiling: summarise(runs.ceiling),
      effect: summaryOf("effect"),
      effectTwin: summaryOf("effectTwin"),
      archive: summarise(runs.archive),
      archiveTwin: summarise(runs.archiveTwin),
    },
    longTasks,
    taps,
  };
}
