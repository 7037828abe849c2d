/**
 * A page's Lighthouse runs summed up into one number each (bench/lighthouse.ts runs them).
 */
import type { Run } from "./lighthouse";
import { median } from "./stats";

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Numbers summed up by their mean over the runs rather than their median. Total Blocking Time is
 * about 0 or about 70 ms from one cold run to the next, on every page, the ceiling page without a
 * script included: Lighthouse multiplies the tasks it saw by four and counts those after its
 * estimate of the first paint, and whether the document's first layout (the longest task, 15 to
 * 45 ms here, most of it fonts looked up in a fresh Chromium) falls after that estimate depends on
 * whether Chromium happened to lay out its empty initial document first (docs/testing.md). A
 * median of a few such runs is one mode or the other; their mean moves much less.
 */
export const MEAN_METRICS: ReadonlySet<keyof Run> = new Set<keyof Run>(["tbtMs"]);

/** Each number over the runs: the median, or the mean for MEAN_METRICS. */
export function summarise(runs: Run[]): Run {
  const keys = Object.keys(runs[0]) as Array<keyof Run>;
  return Object.fromEntries(
    keys.map((key) => {
      const values = runs.map((run) => run[key]);
      return [key, MEAN_METRICS.has(key) ? mean(values) : median(values)];
    }),
  ) as Run;
}
