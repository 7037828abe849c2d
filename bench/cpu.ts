/**
 * The same phone on every machine (issue 41, item 9): the one CPU slowdown every part of the bench
 * uses, Lighthouse's `throttling.cpuSlowdownMultiplier` and every `Emulation.setCPUThrottlingRate`.
 *
 * A fixed 4x (Lighthouse's default) is a different phone on every host: DevTools throttling and
 * Lighthouse's simulation both scale the host's own CPU. Lighthouse's throttling guide
 * (https://github.com/GoogleChrome/lighthouse/blob/main/docs/throttling.md, "Calibrating the CPU
 * slowdown", and the calculator it links) says to calibrate: the multiplier is the host's
 * benchmark index over the index of the device to emulate. So before the runs the bench measures
 * the host's index as Lighthouse does (`computeBenchmarkIndex` of Lighthouse's page functions, in
 * a fresh Chromium page, SAMPLES times after a warm-up, the median) and uses
 *
 *     multiplier = host index / TARGET_INDEX
 *
 * (one decimal, within MIN_MULTIPLIER to MAX_MULTIPLIER: a host slower than the phone runs
 * unthrottled, and past 20x the guide's own table ends). Every machine then meets a phone of index
 * TARGET_INDEX: 7.5x on a host of 2,800, 3.2x on one of 1,200.
 *
 * To see on this machine what a slower one gives, `--host-index N` runs the bench as on a host of
 * index N: Chromium is first slowed to that index (DevTools throttling at measured / N, under
 * Lighthouse's own trace too, which keeps CPU throttling set before it in simulated mode), then
 * that host's multiplier (N / TARGET_INDEX) applies on top: Lighthouse's simulation multiplies the
 * slowed trace's tasks by it, and DevTools throttles at the product of the two, which is measured /
 * TARGET_INDEX whatever N is. `--multiplier M` replaces the calibrated multiplier (`--host-index
 * 1200 --multiplier 4` is the fixed 4x on a slow host, as the issue measured it).
 */
import { parseArgs } from "node:util";
import { launchChromium } from "../test/support/browser";
import { median } from "./stats";

/** The benchmark index of the phone every host emulates: a low-to-mid-tier Android phone. */
export const TARGET_INDEX = 375;
/** A host slower than the target phone is not sped up. */
export const MIN_MULTIPLIER = 1;
/** The highest multiplier in the throttling guide's table (a high-end desktop as a low-end phone). */
export const MAX_MULTIPLIER = 20;
/** Measurements of the host's index; each takes about a second. */
export const SAMPLES = 5;

export interface CpuThrottling {
  /** This machine's benchmark index, measured before the runs (the median of `samples`). */
  measuredIndex: number;
  samples: number[];
  /** The host the bench runs as: this machine, or the slower one `--host-index` names. */
  hostIndex: number;
  /** That host's multiplier: hostIndex / TARGET_INDEX, or what `--multiplier` says. */
  multiplier: number;
  /** How much this machine is slowed to run as that host (1 on its own index). */
  hostSlowdown: number;
  /** The rate DevTools throttles this machine's CPU at: hostSlowdown x multiplier. */
  rate: number;
  /** The benchmark index the pages meet: measuredIndex / rate. */
  effectiveIndex: number;
  /** What was given instead of the measurement and the calibration. */
  overrides: { hostIndex?: number; multiplier?: number };
}

const oneDecimal = (value: number): number => Math.round(value * 10) / 10;

/** The calibrated multiplier for a host of `hostIndex`: hostIndex / TARGET_INDEX, clamped, one decimal. */
export function calibratedMultiplier(hostIndex: number): number {
  return Math.min(MAX_MULTIPLIER, Math.max(MIN_MULTIPLIER, oneDecimal(hostIndex / TARGET_INDEX)));
}

/** The throttling for this machine's measured samples and the overrides, if any. */
export function cpuThrottling(
  samples: number[],
  overrides: { hostIndex?: number; multiplier?: number } = {},
): CpuThrottling {
  const measuredIndex = Math.round(median(samples));
  const hostIndex = overrides.hostIndex ?? measuredIndex;
  if (hostIndex > measuredIndex) {
    throw new Error(
      `--host-index ${hostIndex}: this machine's index is ${measuredIndex}; a faster host cannot be emulated`,
    );
  }
  const multiplier = overrides.multiplier ?? calibratedMultiplier(hostIndex);
  const hostSlowdown = Math.round((measuredIndex / hostIndex) * 100) / 100;
  const rate = Math.round(hostSlowdown * multiplier * 100) / 100;
  return {
    measuredIndex,
    samples,
    hostIndex,
    multiplier,
    hostSlowdown,
    rate,
    effectiveIndex: Math.round(measuredIndex / rate),
    overrides,
  };
}

/** Lighthouse's benchmark index of this machine, measured `count` times in a fresh Chromium page. */
export async function measureBenchmarkIndex(count = SAMPLES): Promise<number[]> {
  // Lighthouse is an ES module; this file runs as CommonJS, so it is imported dynamically.
  const { pageFunctions } = await import("lighthouse/core/lib/page-functions.js");
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    // V8 warms up on the first, which is left out.
    await page.evaluate(pageFunctions.computeBenchmarkIndex);
    const samples: number[] = [];
    for (let index = 0; index < count; index += 1)
      samples.push(Math.round(await page.evaluate(pageFunctions.computeBenchmarkIndex)));
    return samples;
  } finally {
    await browser.close();
  }
}

const positiveNumber = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new Error(`${flag} takes a positive number, not ${value}`);
  return number;
};

/**
 * `--host-index N` and `--multiplier M` of a bench's command line (nothing else is taken; a
 * leading `--`, as `npx tsx file -- ...` leaves it, is skipped).
 */
export function cpuOverrides(args: string[]): { hostIndex?: number; multiplier?: number } {
  const { values } = parseArgs({
    args: args[0] === "--" ? args.slice(1) : args,
    options: { "host-index": { type: "string" }, multiplier: { type: "string" } },
    strict: true,
  });
  const hostIndex = positiveNumber("--host-index", values["host-index"]);
  const multiplier = positiveNumber("--multiplier", values.multiplier);
  return {
    ...(hostIndex === undefined ? {} : { hostIndex }),
    ...(multiplier === undefined ? {} : { multiplier }),
  };
}

/** Measures this machine and prints the throttling the bench will use. */
export async function calibrateCpu(args: string[] = process.argv.slice(2)): Promise<CpuThrottling> {
  const overrides = cpuOverrides(args);
  const cpu = cpuThrottling(await measureBenchmarkIndex(), overrides);
  console.log(cpuLine(cpu));
  return cpu;
}

/**
 * Below this share, an index says the machine was busy: the lowest of the calibration's own
 * measurements against the highest, or the index Lighthouse measured in its runs (the median)
 * against the calibrated one. Lighthouse measures a Chromium just started, so about 0.85 of the
 * calibration is usual on a quiet machine.
 */
export const BUSY_SHARE = 0.75;

/**
 * A warning when the machine was busy while it was calibrated or during the runs: other work then
 * moved the CPU the pages met away from the phone's, and the CPU-bound verdicts say more about the
 * machine than about the pages.
 */
export function busyWarning(cpu: CpuThrottling, lighthouseIndexes: number[]): string | null {
  const low = Math.min(...cpu.samples);
  const high = Math.max(...cpu.samples);
  const warnings = [
    ...(low < high * BUSY_SHARE
      ? [`its measurements when the CPU was calibrated ranged from ${low} to ${high}`]
      : []),
    ...(lighthouseIndexes.length > 0 && median(lighthouseIndexes) < cpu.measuredIndex * BUSY_SHARE
      ? [
          `Lighthouse measured a benchmark index of ${Math.round(median(lighthouseIndexes))} in its runs ` +
            `(median of ${lighthouseIndexes.length}, ${Math.round(Math.min(...lighthouseIndexes))}-` +
            `${Math.round(Math.max(...lighthouseIndexes))}) against ${cpu.measuredIndex} calibrated`,
        ]
      : []),
  ];
  return warnings.length === 0
    ? null
    : `The machine was busy: ${warnings.join("; ")}. The pages met another CPU than the phone's.`;
}

/** The throttling in words, as the bench prints and reports it. */
export function cpuLine(cpu: CpuThrottling): string {
  const measured =
    `Benchmark index ${cpu.measuredIndex} (median of ${cpu.samples.length}: ` +
    `${Math.min(...cpu.samples)}-${Math.max(...cpu.samples)})`;
  const multiplier = cpu.overrides.multiplier
    ? `multiplier ${cpu.multiplier}x (given)`
    : `multiplier ${cpu.multiplier}x (${cpu.hostIndex} / ${TARGET_INDEX})`;
  if (cpu.hostSlowdown === 1 && cpu.overrides.hostIndex === undefined)
    return `${measured}; ${multiplier}: the pages meet a CPU of index ${cpu.effectiveIndex}.`;
  return (
    `${measured}; run as a host of index ${cpu.hostIndex}: slowed ${cpu.hostSlowdown}x to it, then its ` +
    `${multiplier}; DevTools throttles at ${cpu.rate}x: the pages meet a CPU of index ${cpu.effectiveIndex}.`
  );
}
