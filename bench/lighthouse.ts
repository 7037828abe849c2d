/**
 * Lighthouse 13 (what PageSpeed Insights runs) on the built landing page, its no-JavaScript twin,
 * the ceiling page and an Effect of the Day's page, each served by a local stack: mobile
 * emulation, simulated throttling (Lighthouse's defaults) but the CPU's multiplier, which is the
 * bench's calibrated one (bench/cpu.ts), RUNS runs each, alternated so all see the same machine
 * load.
 */
import * as chromeLauncher from "chrome-launcher";
import type { Browser, Page } from "puppeteer-core";
import { chromiumFlags, chromiumPath } from "../test/support/browser";
import { readNumberVariable } from "../supabase/functions/_shared/contract/variables";
import type { CpuThrottling } from "./cpu";

/** Runs per page; `BENCH_RUNS=1 npm run bench` for a quick check of the pipeline. */
export const RUNS = readNumberVariable(process.env, "BENCH_RUNS");

export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;

/** Lighthouse audits read for each run, in milliseconds except CLS (unitless). */
export const METRICS = {
  fcpMs: "first-contentful-paint",
  lcpMs: "largest-contentful-paint",
  tbtMs: "total-blocking-time",
  cls: "cumulative-layout-shift",
  speedIndexMs: "speed-index",
} as const;

export type Run = Record<(typeof CATEGORIES)[number], number> &
  Record<keyof typeof METRICS, number> & {
    totalBytes: number;
    scriptBytes: number;
    /** Lighthouse's measure of the machine's CPU (its `environment.benchmarkIndex`; higher is faster). */
    benchmarkIndex: number;
  };

interface Lhr {
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { numericValue?: number; details?: { items?: Array<Record<string, unknown>> } }>;
  runtimeError?: { message: string };
  environment?: { benchmarkIndex?: number };
  configSettings: { throttlingMethod: string; throttling: { cpuSlowdownMultiplier: number } };
}

/**
 * The page Lighthouse loads, when the bench runs as a slower host (`--host-index`): Chromium's
 * CPU slowed to that host's first. In simulated mode Lighthouse leaves CPU throttling set before
 * it alone (it clears only the network's), so its trace is that host's, and its simulation then
 * multiplies the trace's tasks by that host's multiplier. Undefined on this machine's own index.
 */
async function slowedPage(
  port: number,
  cpu: CpuThrottling,
): Promise<{ browser: Browser; page: Page } | undefined> {
  if (cpu.hostSlowdown === 1) return undefined;
  const puppeteer = await import("puppeteer-core");
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}`, defaultViewport: null });
  const page = await browser.newPage();
  await (await page.createCDPSession()).send("Emulation.setCPUThrottlingRate", { rate: cpu.hostSlowdown });
  return { browser, page };
}

/** One cold Lighthouse run in a fresh Chromium, its CPU multiplier `cpu.multiplier`. */
export async function lighthouseRun(url: string, cpu: CpuThrottling): Promise<Run> {
  // Lighthouse is an ES module; this file runs as CommonJS, so it is imported dynamically.
  const { default: lighthouse } = await import("lighthouse");
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath,
    // The bench's HTTPS front (bench/https-front.ts) has a throwaway certificate for 127.0.0.1.
    chromeFlags: [...chromiumFlags, "--headless=new", "--ignore-certificate-errors"],
  });
  let slowed: Awaited<ReturnType<typeof slowedPage>>;
  try {
    slowed = await slowedPage(chrome.port, cpu);
    const result = await lighthouse(
      url,
      {
        port: chrome.port,
        logLevel: "error",
        output: "json",
        throttling: { cpuSlowdownMultiplier: cpu.multiplier },
      },
      undefined,
      slowed?.page,
    );
    const lhr = result?.lhr as unknown as Lhr | undefined;
    if (!lhr) throw new Error(`Lighthouse returned nothing for ${url}`);
    if (lhr.runtimeError) throw new Error(`Lighthouse failed on ${url}: ${lhr.runtimeError.message}`);
    const { throttlingMethod, throttling } = lhr.configSettings;
    if (throttlingMethod !== "simulate" || throttling.cpuSlowdownMultiplier !== cpu.multiplier) {
      throw new Error(
        `Lighthouse ran ${throttlingMethod} at ${throttling.cpuSlowdownMultiplier}x, not simulate at ${cpu.multiplier}x`,
      );
    }
    const audit = (id: string): number => {
      const value = lhr.audits[id]?.numericValue;
      if (value === undefined) throw new Error(`Lighthouse audit ${id} has no value for ${url}`);
      return value;
    };
    const scriptRow = lhr.audits["resource-summary"]?.details?.items?.find(
      (item) => item.resourceType === "script",
    );
    const scores = Object.fromEntries(
      CATEGORIES.map((category) => [category, Math.round((lhr.categories[category]?.score ?? 0) * 100)]),
    ) as Record<(typeof CATEGORIES)[number], number>;
    const metrics = Object.fromEntries(
      Object.entries(METRICS).map(([key, id]) => [key, audit(id)]),
    ) as Record<keyof typeof METRICS, number>;
    return {
      ...scores,
      ...metrics,
      totalBytes: audit("total-byte-weight"),
      scriptBytes: Number(scriptRow?.transferSize ?? 0),
      benchmarkIndex: lhr.environment?.benchmarkIndex ?? 0,
    };
  } finally {
    await slowed?.browser.disconnect();
    chrome.kill();
  }
}

/**
 * A run that Lighthouse itself reports as broken (for example NO_NAVSTART, a trace that missed the
 * navigation, which Lighthouse asks to retry) is run again, up to `attempts` times.
 */
export async function lighthouseRunWithRetry(url: string, cpu: CpuThrottling, attempts = 3): Promise<Run> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await lighthouseRun(url, cpu);
    } catch (error) {
      if (attempt >= attempts) throw error;
      console.warn(`  retrying: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

export interface MeasuredPage<Key extends string> {
  key: Key;
  /** How the progress lines name it, e.g. "twin". */
  label: string;
  url: string;
}

/**
 * Runs Lighthouse `runs` times on each page, one page after the other in every round, so each
 * page sees the same machine load, and reports every run by page. Each round starts one page
 * later than the last, so no page always runs first.
 */
export async function compare<Key extends string>(
  pages: Array<MeasuredPage<Key>>,
  cpu: CpuThrottling,
  runs = RUNS,
  onRun: (label: string, run: Run) => void = () => undefined,
): Promise<Record<Key, Run[]>> {
  const results = Object.fromEntries(pages.map((page) => [page.key, [] as Run[]])) as Record<Key, Run[]>;
  for (let index = 0; index < runs; index += 1) {
    for (let step = 0; step < pages.length; step += 1) {
      const page = pages[(index + step) % pages.length];
      const run = await lighthouseRunWithRetry(page.url, cpu);
      onRun(`${page.label} ${index + 1}/${runs}`, run);
      results[page.key].push(run);
    }
  }
  return results;
}
