import {
  busyWarning,
  calibratedMultiplier,
  cpuLine,
  cpuOverrides,
  cpuThrottling,
  TARGET_INDEX,
} from "../cpu";

describe("the same phone on every machine", () => {
  it("calibrates the multiplier as the throttling guide says: host index / target, one decimal", () => {
    expect(TARGET_INDEX).toBe(375);
    expect(calibratedMultiplier(2800)).toBe(7.5);
    expect(calibratedMultiplier(1200)).toBe(3.2);
    expect(calibratedMultiplier(1500)).toBe(4);
  });

  it("never speeds a slow host up, and stops where the guide's table ends", () => {
    expect(calibratedMultiplier(300)).toBe(1);
    expect(calibratedMultiplier(12_000)).toBe(20);
  });

  it("takes the median of the host's measurements", () => {
    const cpu = cpuThrottling([2650, 2800, 2900, 2100, 2810]);
    expect(cpu).toMatchObject({
      measuredIndex: 2800,
      hostIndex: 2800,
      multiplier: 7.5,
      hostSlowdown: 1,
      rate: 7.5,
    });
    expect(cpu.effectiveIndex).toBe(373);
  });

  it("meets a phone of about the target index on a slow host and on a fast one", () => {
    for (const index of [1060, 1200, 1550, 2675, 2800, 2845]) {
      expect(Math.abs(cpuThrottling([index]).effectiveIndex - TARGET_INDEX)).toBeLessThan(
        TARGET_INDEX * 0.02,
      );
    }
  });

  it("runs as a slower host by slowing this one to it, then applying that host's multiplier", () => {
    const asSlowHost = cpuThrottling([2800], { hostIndex: 1200 });
    expect(asSlowHost).toMatchObject({ hostIndex: 1200, multiplier: 3.2, hostSlowdown: 2.33 });
    // DevTools throttles at the product, which is what this host's own calibration gives.
    expect(asSlowHost.rate).toBeCloseTo(cpuThrottling([2800]).rate, 1);
    expect(Math.abs(asSlowHost.effectiveIndex - TARGET_INDEX)).toBeLessThan(TARGET_INDEX * 0.02);
  });

  it("takes a given multiplier instead of the calibrated one, as the fixed 4x was", () => {
    const fixed = cpuThrottling([2800], { hostIndex: 1200, multiplier: 4 });
    expect(fixed).toMatchObject({ multiplier: 4, rate: 9.32, effectiveIndex: 300 });
    expect(cpuLine(fixed)).toContain("multiplier 4x (given)");
  });

  it("refuses to run as a host faster than this one", () => {
    expect(() => cpuThrottling([1200], { hostIndex: 2800 })).toThrow(
      "--host-index 2800: this machine's index is 1200; a faster host cannot be emulated",
    );
  });

  it("reads --host-index and --multiplier, and nothing else", () => {
    expect(cpuOverrides([])).toEqual({});
    expect(cpuOverrides(["--host-index", "1200", "--multiplier=4"])).toEqual({
      hostIndex: 1200,
      multiplier: 4,
    });
    expect(() => cpuOverrides(["--host-index", "fast"])).toThrow(
      "--host-index takes a positive number, not fast",
    );
    expect(() => cpuOverrides(["--runs", "3"])).toThrow();
    // `npx tsx bench/long-tasks.ts -- --host-index 1200` leaves the `--` in.
    expect(cpuOverrides(["--", "--host-index", "1200"])).toEqual({ hostIndex: 1200 });
  });

  it("says what it measured and what the pages meet", () => {
    expect(cpuLine(cpuThrottling([2700, 2800, 2900]))).toBe(
      "Benchmark index 2800 (median of 3: 2700-2900); multiplier 7.5x (2800 / 375): the pages meet a CPU of index 373.",
    );
    expect(cpuLine(cpuThrottling([2800], { hostIndex: 1200 }))).toBe(
      "Benchmark index 2800 (median of 1: 2800-2800); run as a host of index 1200: slowed 2.33x to it, then its " +
        "multiplier 3.2x (1200 / 375); DevTools throttles at 7.46x: the pages meet a CPU of index 375.",
    );
  });

  it("warns when the machine was busy while calibrated or during the runs", () => {
    const cpu = cpuThrottling([1650, 1700, 1720]);
    // A Chromium just started measures about 0.85 of a quiet machine's index: no warning.
    expect(busyWarning(cpu, [1450, 1500, 1380, 1560])).toBeNull();
    expect(busyWarning(cpu, [])).toBeNull();
    expect(busyWarning(cpu, [1200, 900, 1250, 640, 1500])).toBe(
      "The machine was busy: Lighthouse measured a benchmark index of 1200 in its runs (median of 5, " +
        "640-1500) against 1700 calibrated. The pages met another CPU than the phone's.",
    );
    expect(busyWarning(cpuThrottling([371, 821, 996, 1281, 905]), [900])).toBe(
      "The machine was busy: its measurements when the CPU was calibrated ranged from 371 to 1281. " +
        "The pages met another CPU than the phone's.",
    );
  });
});
