/**
 * A Jest reporter beside the default one: after every run, how long each project took (from its
 * first test file's start to its last one's end, the files' own time summed, and the CPU they cost
 * with their children, cpu-time.js) and its slowest files, so a run that grows says where.
 * `npm test` must stay within 10 minutes on two cores. With JEST_TIMES_FILE set, every file's
 * start, time and CPU are written there as JSON too.
 *
 * The same tests took from 557 to 731 s on one 2-core VM, so a run of many files (a project or
 * more) also says how fast the machine was: Lighthouse's benchmark index (`computeBenchmarkIndex`,
 * what `npm run bench` calibrates its phone with, bench/cpu.ts), in Node's V8 at its default flags,
 * once every test has ended (the global setups start servers and a build before a reporter could
 * measure a quiet machine). Two runs compare by time and index; a slow spell of the VM lasts for
 * minutes.
 */
const { spawnSync } = require("node:child_process");
const { mkdtempSync, rmSync, writeFileSync } = require("node:fs");
const { tmpdir } = require("node:os");
const path = require("node:path");
const { recordedCpu, variable } = require("./cpu-time");

/** Prints the index: a warm-up, then the median of three; "null" where Lighthouse's module won't load. */
const MEASURE = `
  let pageFunctions;
  try {
    ({ pageFunctions } = require("lighthouse/core/lib/page-functions.js"));
  } catch {
    console.log("null");
    process.exit(0);
  }
  pageFunctions.computeBenchmarkIndex();
  const samples = [0, 1, 2].map(() => Math.round(pageFunctions.computeBenchmarkIndex())).sort((a, b) => a - b);
  console.log(samples[1]);
`;

/**
 * Lighthouse's benchmark index of this machine now (about four seconds); null where Node cannot
 * load Lighthouse's module (it is an ES module, which `require` loads from Node 20.19 and 22.12
 * on). Measured in a Node process of its own, at V8's default flags: Jest runs with the tests'
 * (scripts/run-tests.ts), whose ceiling on V8's compilers would slow the loop the index times and
 * make a run's index incomparable with `npm run bench`'s and with earlier runs'.
 */
function benchmarkIndex() {
  const run = spawnSync(process.execPath, ["-e", MEASURE], {
    cwd: path.resolve(__dirname, "../../.."),
    encoding: "utf8",
    timeout: 60_000,
  });
  const index = Number(run.stdout?.trim());
  return run.status === 0 && index > 0 ? index : null;
}

/** A run of this many files or more measures the machine (a few seconds; not for one file's loop). */
const MANY_FILES = 20;

class ProjectTimes {
  constructor() {
    /** @type {Map<string, { start: number; end: number; files: number; ownMs: number; cpu: number; all: Array<{ file: string; at: number; ms: number; cpu: number | null }> }>} */
    this.projects = new Map();
    this.started = Date.now();
    // The test environments (in Jest's workers, which inherit this process's environment) write each
    // file's CPU here.
    this.cpuDir = mkdtempSync(path.join(tmpdir(), "jest-cpu-"));
    process.env.JEST_CPU_DIR = this.cpuDir;
  }

  onTestResult(test, result) {
    const name = test.context.config.displayName?.name ?? "default";
    const { start, end } = result.perfStats;
    const project = this.projects.get(name) ?? { start, end, files: 0, ownMs: 0, cpu: 0, all: [] };
    const cpu = recordedCpu(this.cpuDir, test.path);
    project.start = Math.min(project.start, start);
    project.end = Math.max(project.end, end);
    project.files += 1;
    project.ownMs += end - start;
    project.cpu += cpu ?? 0;
    // `at`: when the file started, in ms from the run's start (what ran beside what, and the tail).
    project.all.push({
      file: path.relative(test.context.config.rootDir, test.path),
      at: start - this.started,
      ms: end - start,
      cpu,
    });
    this.projects.set(name, project);
  }

  onRunComplete() {
    const elapsed = Date.now() - this.started;
    const files = [...this.projects.values()].reduce((sum, project) => sum + project.files, 0);
    const machine = { benchmarkIndex: files >= MANY_FILES ? benchmarkIndex() : null };
    const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
    const lines = [...this.projects].map(([name, project]) => {
      const slowest = [...project.all].sort((a, b) => b.ms - a.ms).slice(0, 3);
      return `  ${name.padEnd(8)} ${seconds(project.end - project.start).padStart(6)} (${project.files} files, ${seconds(project.ownMs)} of their own, ${project.cpu.toFixed(0)} s of CPU); slowest: ${slowest
        .map(({ file, ms }) => `${file} ${seconds(ms)}`)
        .join(", ")}`;
    });
    const index = machine.benchmarkIndex
      ? `; the machine's benchmark index after it ${machine.benchmarkIndex}`
      : "";
    console.log(`\nTime per project (the whole run ${seconds(elapsed)}${index}):\n${lines.join("\n")}`);
    const file = variable("JEST_TIMES_FILE");
    if (file) writeFileSync(file, JSON.stringify({ ...Object.fromEntries(this.projects), machine }, null, 2));
    rmSync(this.cpuDir, { recursive: true, force: true });
  }
}

module.exports = ProjectTimes;
