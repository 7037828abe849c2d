/**
 * The first tap on a phone: a cold visit to the landing page over a slow mobile connection
 * (150 ms round trip, 1.6 Mbps down, 750 kbps up) with the CPU slowed to the bench's phone (the
 * calibrated rate, bench/cpu.ts), a tap on "Join the
 * Movement" made a set time after `load`, and the milliseconds from the tap's `pointerdown` to the
 * first frame drawn with the signup dialog visible. What a visitor feels when the page looks
 * ready and they act on it. Used by `npm run bench` (the built page) and `npm run
 * bench:strategies` (ways of loading the scripts, side by side).
 */
import type { Browser, CDPSession, Page } from "playwright-core";
import { launchChromium, VIEWPORTS } from "../test/support/browser";
import { SPEC } from "../test/support/texts";
import type { CpuThrottling } from "./cpu";
import { dialogProbe, untilDialogShown } from "./dialog-probe";
import { median } from "./stats";
import { readNumberVariable } from "../supabase/functions/_shared/contract/variables";

/** The phone's network: Lighthouse's "slow 4G" round trip and bandwidth (its CPU: bench/cpu.ts). */
export const PHONE = { latencyMs: 150, downKbps: 1_600, upKbps: 750 } as const;

/** When the tap comes, after `load`, and how soon the dialog must then be visible (median). */
export const TAP_TARGETS = [
  { afterLoadMs: 1_000, targetMs: 1_000 },
  { afterLoadMs: 3_000, targetMs: 300 },
] as const;

/** Taps per page and delay. */
export const TAP_RUNS = readNumberVariable(process.env, "BENCH_RUNS");

/** A tap that has not opened the dialog after this long counts as this long (and fails its target). */
const GIVE_UP_MS = 15_000;

export interface TapPage {
  label: string;
  url: string;
}

export interface TapResult {
  label: string;
  afterLoadMs: number;
  /** One per run, in milliseconds; GIVE_UP_MS when the dialog never showed. */
  latenciesMs: number[];
  medianMs: number;
  maxMs: number;
  targetMs: number;
}

async function throttle(cdp: CDPSession, cpu: CpuThrottling): Promise<void> {
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: PHONE.latencyMs,
    downloadThroughput: (PHONE.downKbps * 1000) / 8,
    uploadThroughput: (PHONE.upKbps * 1000) / 8,
  });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpu.rate });
}

/** Waits on the page's own clock until `afterLoadMs` have passed since its `load` event ended. */
async function untilAfterLoad(page: Page, afterLoadMs: number): Promise<void> {
  await page.waitForFunction(
    (delay) => {
      const [navigation] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
      return (
        navigation !== undefined &&
        navigation.loadEventEnd > 0 &&
        performance.now() >= navigation.loadEventEnd + delay
      );
    },
    afterLoadMs,
    { timeout: 60_000, polling: 20 },
  );
}

/** One cold visit and one tap: the milliseconds from the tap to the dialog's first frame. */
async function tapOnce(
  browser: Browser,
  url: string,
  afterLoadMs: number,
  cpu: CpuThrottling,
): Promise<number> {
  const context = await browser.newContext({ viewport: VIEWPORTS.mobile, hasTouch: true, isMobile: true });
  try {
    await context.addInitScript(dialogProbe("pointerdown"));
    const page = await context.newPage();
    await throttle(await context.newCDPSession(page), cpu);
    await page.goto(url, { waitUntil: "load", timeout: 60_000 });
    await untilAfterLoad(page, afterLoadMs);
    // The hero's trigger: a link until React runs, a button after; either way the first one.
    await page
      .locator("[data-signup-trigger]", { hasText: SPEC.joinTheMovement })
      .first()
      .tap({ timeout: 5_000 });
    return Math.round(await untilDialogShown(page, GIVE_UP_MS).catch(() => GIVE_UP_MS));
  } finally {
    await context.close();
  }
}

/**
 * Taps `runs` times on each page at each delay: one cold visit per tap, the pages and delays
 * rotated within each round so every one sees the same machine load.
 */
export async function measureFirstTap(
  pages: TapPage[],
  cpu: CpuThrottling,
  runs = TAP_RUNS,
  onTap: (line: string) => void = () => undefined,
): Promise<TapResult[]> {
  const cases = pages.flatMap((page) => TAP_TARGETS.map((target) => ({ page, target })));
  const latencies = cases.map(() => [] as number[]);
  const browser = await launchChromium();
  try {
    for (let round = 0; round < runs; round += 1) {
      for (let step = 0; step < cases.length; step += 1) {
        const index = (round + step) % cases.length;
        const { page, target } = cases[index];
        const latency = await tapOnce(browser, page.url, target.afterLoadMs, cpu);
        latencies[index].push(latency);
        onTap(
          `${page.label}, tap ${target.afterLoadMs / 1000} s after load, ${round + 1}/${runs}: ${latency} ms`,
        );
      }
    }
  } finally {
    await browser.close();
  }
  return cases.map(({ page, target }, index) => ({
    label: page.label,
    afterLoadMs: target.afterLoadMs,
    latenciesMs: latencies[index],
    medianMs: median(latencies[index]),
    maxMs: Math.max(...latencies[index]),
    targetMs: target.targetMs,
  }));
}

export const phoneDescription = (cpu: CpuThrottling): string =>
  `${PHONE.latencyMs} ms round trip, ${PHONE.downKbps / 1000} Mbps down, ${PHONE.upKbps} kbps up, ` +
  `CPU ${cpu.rate}x slower, cold cache`;

export const tapLine = (result: TapResult): string =>
  `median ${Math.round(result.medianMs)} ms, max ${result.maxMs} ms (each: ${result.latenciesMs.join(", ")} ms)`;
