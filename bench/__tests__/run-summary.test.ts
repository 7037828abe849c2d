import type { Run } from "../lighthouse";
import { summarise } from "../run-summary";

/** One Lighthouse run as the bench records it; only LCP and TBT differ between runs here. */
const run = (lcpMs: number, tbtMs: number): Run => ({
  performance: 100,
  accessibility: 100,
  "best-practices": 100,
  seo: 100,
  fcpMs: 800,
  lcpMs,
  tbtMs,
  cls: 0,
  speedIndexMs: 800,
  totalBytes: 100_000,
  scriptBytes: 70_000,
  benchmarkIndex: 2800,
});

describe("a page's Lighthouse runs summed up", () => {
  // The archive's five runs on c60d6c6 and its twin's: TBT about 0 or about 70 ms in each run.
  const archive = [run(989, 0), run(903, 0), run(1055, 72), run(979, 66), run(980, 52)];
  const twin = [run(1053, 0), run(1055, 56), run(1055, 3), run(903, 108), run(1053, 0)];

  it("takes the mean of Total Blocking Time, whose runs are one of two modes", () => {
    expect(summarise(archive).tbtMs).toBe(38);
    expect(summarise(twin).tbtMs).toBeCloseTo(33.4);
  });

  it("takes the median of every other number", () => {
    expect(summarise(archive).lcpMs).toBe(980);
    expect(summarise(twin).lcpMs).toBe(1053);
    expect(summarise(archive).performance).toBe(100);
  });
});
