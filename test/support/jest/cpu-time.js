// The CPU a test file costs, its own process's and that of every child it started and waited for
// (Chromium, a stack, a build, a command), read from /proc/self/stat around the file: the test
// environment writes it beside the run (JEST_CPU_DIR, set by project-times.js), the reporter sums
// it per project. Elsewhere than on Linux there is no /proc and nothing is written.
const { mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { createHash } = require("node:crypto");
const path = require("node:path");

/**
 * A variable of the registry (supabase/functions/_shared/contract/variables.ts), which these
 * CommonJS files, loaded by Jest untransformed, cannot import.
 */
const variable = (name) => process.env[name] || undefined;

/** Clock ticks a second of /proc's times (USER_HZ): 100 on every Linux Jest runs on. */
const TICKS = 100;

/** utime + stime + cutime + cstime of this process, in seconds; null without /proc. */
function cpuSeconds() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The command's name, in parentheses, may hold spaces: the fields start after its end.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / TICKS;
  } catch {
    return null;
  }
}

const recordFile = (dir, testPath) =>
  path.join(dir, `${createHash("sha256").update(testPath).digest("hex").slice(0, 24)}.json`);

/** A test environment class that records the CPU its files cost. */
function measuringCpu(Environment) {
  return class extends Environment {
    constructor(config, context) {
      super(config, context);
      this.testPath = context.testPath;
    }
    async setup() {
      this.cpuAtStart = cpuSeconds();
      await super.setup();
    }
    async teardown() {
      await super.teardown();
      const dir = variable("JEST_CPU_DIR");
      const end = cpuSeconds();
      if (!dir || end === null || this.cpuAtStart === null) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(recordFile(dir, this.testPath), JSON.stringify({ cpuSeconds: end - this.cpuAtStart }));
    }
  };
}

/** What the environment recorded for `testPath`, in seconds; null when nothing was. */
function recordedCpu(dir, testPath) {
  try {
    return JSON.parse(readFileSync(recordFile(dir, testPath), "utf8")).cpuSeconds;
  } catch {
    return null;
  }
}

module.exports = { measuringCpu, recordedCpu, variable };
