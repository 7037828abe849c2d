/**
 * `npm test`'s runner (scripts/run-tests.ts) with real processes in place of the checks and Jest:
 * the checks, and what they start, run at the lowest priority while the tests keep theirs; the
 * checks' output is printed once, whole; the command fails when either side fails, and waits for
 * both; Jest's workers run with the tests' V8 flags.
 */
import { EventEmitter } from "node:events";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../../test/support/eventually.ts";
import { TEST_NODE_FLAGS } from "../../test/support/process.ts";
import { checkBesideTests, type Command, jestCommand } from "../run-tests.ts";

let dir: string;
let printed: string[];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "test-command-"));
  printed = [];
  jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    printed.push(chunk.toString());
    return true;
  });
  jest.spyOn(console, "error").mockImplementation((...words: unknown[]) => {
    printed.push(words.join(" "));
  });
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** A Node process running `code`. */
const node = (code: string): Command => ({ command: process.execPath, args: ["-e", code] });

/**
 * The checks' stand-in: says its priority, its session's share of the CPU (Linux's autogroup, where
 * there is one) and the priority of a process it starts, then ends with `code`.
 */
const check = (code: number, waitMs = 0): Command =>
  node(`
    const { execFileSync } = require("node:child_process");
    const { existsSync, readFileSync } = require("node:fs");
    console.log("check at", require("node:os").getPriority());
    if (existsSync("/proc/self/autogroup")) console.log("session", readFileSync("/proc/self/autogroup", "utf8").trim());
    execFileSync(process.execPath, ["-e", 'console.log("its child at", require("node:os").getPriority())'], { stdio: "inherit" });
    setTimeout(() => process.exit(${code}), ${waitMs});
  `);

/**
 * Jest's stand-in: writes its priority into the folder it is given (its output goes straight to the
 * terminal), ends with `code`.
 */
const tests = (code: number): Command =>
  node(`
    require("node:fs").writeFileSync(require("node:path").join(process.argv[1], "tests"), String(require("node:os").getPriority()));
    process.exit(${code});
  `);

/** Whether this Linux shares the CPU between sessions first. */
const autogroups =
  existsSync("/proc/sys/kernel/sched_autogroup_enabled") &&
  readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1";

const withDir = (command: Command): Command => ({ ...command, args: [...command.args, dir] });

it("runs the checks, and what they start, at the lowest priority beside the tests at theirs, and passes when both pass", async () => {
  const code = await checkBesideTests(check(0), withDir(tests(0)), dir);
  expect(code).toBe(0);
  const output = printed.join("");
  expect(output).toContain("check at 19");
  expect(output).toContain("its child at 19");
  expect(readFileSync(path.join(dir, "tests"), "utf8")).toBe(String(getPriority()));
  if (autogroups) {
    // A session of its own, at the lowest share; npm test's own session keeps its share.
    const own = readFileSync("/proc/self/autogroup", "utf8").trim();
    expect(output).toMatch(/session \/autogroup-\d+ nice 19/);
    expect(output).not.toContain(`session ${own.split(" ")[0]} `);
    expect(own).not.toMatch(/nice 19$/);
  }
  // Printed once, whole.
  expect(output.match(/check at/g)).toHaveLength(1);
  expect(output).not.toContain("the checks failed");
});

it("fails when a check fails though the tests pass, and says so after the checks' own lines", async () => {
  const code = await checkBesideTests(check(3), withDir(tests(0)), dir);
  expect(code).toBe(3);
  const output = printed.join("");
  const [lines, failure] = [output.indexOf("its child at 19"), output.indexOf("the checks failed")];
  expect(lines).toBeGreaterThanOrEqual(0);
  expect(failure).toBeGreaterThan(lines);
});

it("fails with the tests' code when they fail and the checks pass", async () => {
  expect(await checkBesideTests(check(0), withDir(tests(2)), dir)).toBe(2);
});

it("waits for checks that end after the tests", async () => {
  const started = Date.now();
  const code = await checkBesideTests(check(4, 1_500), withDir(tests(0)), dir);
  expect(code).toBe(4);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  expect(printed.join("")).toContain("its child at 19");
});

it("stops the checks, and what they started, with the tests when npm test is stopped", async () => {
  // A check that starts a process and waits; the tests' stand-in waits too.
  const pids = path.join(dir, "pids");
  const slowCheck = node(`
    const { spawn } = require("node:child_process");
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    require("node:fs").writeFileSync(process.argv[1], [process.pid, child.pid].join(" "));
    setTimeout(() => {}, 60000);
  `);
  const signals = new EventEmitter();
  const running = checkBesideTests(
    { ...slowCheck, args: [...slowCheck.args, pids] },
    node("setTimeout(() => {}, 60000)"),
    dir,
    signals,
  );
  await eventually(() => existsSync(pids) && readFileSync(pids, "utf8").includes(" "), {
    what: "the check and its child to start",
  });
  signals.emit("SIGTERM", "SIGTERM");
  expect(await running).not.toBe(0);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const [checkPid, childPid] = readFileSync(pids, "utf8").split(" ").map(Number);
  await eventually(() => [alive(checkPid), alive(childPid)], {
    what: "the check and its child to end",
    until: ([a, b]) => !a && !b,
  });
});

it("runs Jest's workers with the V8 flags of the processes the tests start", () => {
  const project = path.join(dir, "project");
  mkdirSync(project);
  // Two files, so Jest hands them to its workers rather than running them in its own process.
  for (const name of ["one", "two"])
    writeFileSync(
      path.join(project, `${name}.test.js`),
      `test("says its flags", () => require("node:fs").writeFileSync(${JSON.stringify(path.join(dir, name))}, JSON.stringify({ pid: process.pid, flags: process.execArgv })));\n`,
    );
  const { NODE_OPTIONS: _, ...env } = process.env;
  const jest = jestCommand(
    [
      ...["--rootDir", project, "--config", '{"transform":{}}', "--maxWorkers", "2"],
      ...["--no-cache", "--cacheDirectory", path.join(dir, "cache")],
    ],
    env,
  );
  const run = spawnSync(jest.command, jest.args, {
    cwd: project,
    env: jest.env,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.stderr).toContain("2 passed");
  expect(run.status).toBe(0);
  for (const name of ["one", "two"]) {
    const worker = JSON.parse(readFileSync(path.join(dir, name), "utf8")) as { pid: number; flags: string[] };
    expect(worker.pid).not.toBe(run.pid);
    expect(worker.flags).toEqual(expect.arrayContaining(["--liftoff-only", "--max-opt=2"]));
  }
  expect(jest.env?.NODE_OPTIONS).toBe("--experimental-vm-modules");
});

it("is what package.json's test:site, test:backend and test:e2e run, with their project", () => {
  const { scripts } = JSON.parse(readFileSync(path.join(__dirname, "../../package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const { NODE_OPTIONS: _, ...env } = process.env;
  for (const project of ["site", "backend", "e2e"]) {
    const jest = jestCommand(["--selectProjects", project], env);
    const jestFile = path.relative(path.join(__dirname, "../.."), jest.args[TEST_NODE_FLAGS.length]);
    const args = [...TEST_NODE_FLAGS, jestFile, ...jest.args.slice(TEST_NODE_FLAGS.length + 1)];
    expect(scripts[`test:${project}`]).toBe(`NODE_OPTIONS=${jest.env?.NODE_OPTIONS} node ${args.join(" ")}`);
  }
});
