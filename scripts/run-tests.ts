/**
 * `npm test`: the static checks (`npm run check`, scripts/check.ts) and every Jest project, side by
 * side. The checks run at the lowest CPU priority, so they take a core only while the tests leave
 * it idle: on 2 cores Jest keeps them about 95 % busy, and the idle rest holds about what the
 * checks cost (40 core-seconds a run against 48 s of CPU), where Jest used to wait 25 to 30 s for
 * them first. Linux shares the CPU between sessions before it looks at a process's priority
 * (autogroups, when /proc/sys/kernel/sched_autogroup_enabled says 1; the tests' stacks and builds
 * each run in a session of their own), so the checks get a session of their own too, whose priority
 * is the lowest; elsewhere `nice` alone does it. The checks' lines are printed together, amid
 * Jest's, when the last check ends; the command fails when either fails. Its arguments go to Jest,
 * and the whole checks still run beside: `npm test -- scripts/__tests__/run-tests.test.ts`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { TEST_NODE_FLAGS } from "../test/support/process.ts";

const ROOT = path.resolve(__dirname, "..");

/** Unix's lowest priority: a process at it gets a core only when nothing else wants it. */
const LOWEST_PRIORITY = "19";

/** Whether Linux shares the CPU between sessions first. */
function autogroups(): boolean {
  try {
    return readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1";
  } catch {
    return false;
  }
}

export interface Command {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

/** How a child ended: its exit code, or 1 for a signal or an error starting it. */
function ended(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.on("error", (error) => {
      console.error(error.message);
      resolve(1);
    });
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/**
 * Runs `check` at the lowest priority, in a session of its own, its output held and printed whole
 * when it ends, beside `tests`, whose output goes straight through; resolves to the exit code
 * `npm test` gives: the tests' when they failed, else the check's. A SIGINT or SIGTERM `signals`
 * gets (this process's) is passed to both.
 */
export async function checkBesideTests(
  check: Command,
  tests: Command,
  cwd = ROOT,
  signals: Pick<NodeJS.EventEmitter, "on" | "off"> = process,
): Promise<number> {
  // `nice` starts it, and every thread and process it makes, at the lowest priority; in a session
  // of its own (detached), it is also a process group, which a signal stops whole.
  const checking = spawn("nice", ["-n", LOWEST_PRIORITY, check.command, ...check.args], {
    cwd,
    env: check.env ?? process.env,
    detached: true,
  });
  if (checking.pid !== undefined && autogroups()) {
    try {
      // The session's share of the CPU, beside the others' (proc(5): any user may lower it); never
      // this one's, were the child still in it.
      const group = `/proc/${checking.pid}/autogroup`;
      const name = (file: string) => readFileSync(file, "utf8").split(" ")[0];
      if (name(group) === name("/proc/self/autogroup")) throw new Error("it is still in npm test's session");
      writeFileSync(group, LOWEST_PRIORITY);
    } catch (error) {
      console.error(`npm test: the checks run at an equal share of the CPU (${(error as Error).message})`);
    }
  }
  let said = "";
  checking.stdout.on("data", (chunk: Buffer) => (said += chunk.toString()));
  checking.stderr.on("data", (chunk: Buffer) => (said += chunk.toString()));
  const checked = ended(checking).then((code) => {
    process.stdout.write(`\n${said.trimEnd()}\n\n`);
    return code;
  });

  const testing = spawn(tests.command, tests.args, { cwd, env: tests.env ?? process.env, stdio: "inherit" });
  // Ctrl-C reaches the terminal's process group, not the checks' own: both are passed the signal.
  const stop = (signal: NodeJS.Signals) => {
    testing.kill(signal);
    try {
      process.kill(-(checking.pid as number), signal);
    } catch {
      // The checks have ended.
    }
  };
  signals.on("SIGINT", stop);
  signals.on("SIGTERM", stop);

  const [checkCode, testCode] = await Promise.all([checked, ended(testing)]);
  signals.off("SIGINT", stop);
  signals.off("SIGTERM", stop);
  if (checkCode !== 0) console.error("npm test: the checks failed (above); `npm run check` runs them alone");
  return testCode !== 0 ? testCode : checkCode;
}

/**
 * Jest with `args`, as `npm test` runs it. Its workers are Node processes it forks with its own
 * flags, so they run with the flags of the processes the tests start (TEST_NODE_FLAGS): a test file
 * loads its modules, PGlite's among them, afresh in its own sandbox, and, like those short
 * processes, never runs long enough for V8's optimizing compilers to pay off. Ten of the heaviest
 * in-process files took 65.0 and 65.4 s of CPU without them and 59.6 and 58.8 s with them
 * (interleaved, `/usr/bin/time`). PGlite loads its WebAssembly with a dynamic import, so Jest's ESM
 * support is on.
 */
export function jestCommand(args: string[], env: NodeJS.ProcessEnv): Command {
  const nodeOptions = [readVariable(env, "NODE_OPTIONS"), "--experimental-vm-modules"]
    .filter(Boolean)
    .join(" ");
  return {
    command: process.execPath,
    args: [...TEST_NODE_FLAGS, require.resolve("jest/bin/jest"), ...args],
    env: { ...env, NODE_OPTIONS: nodeOptions },
  };
}

async function main(): Promise<void> {
  process.exitCode = await checkBesideTests(
    { command: process.execPath, args: ["scripts/run-typescript.cjs", "scripts/check.ts"] },
    jestCommand(process.argv.slice(2), process.env),
  );
}

if (require.main === module) void main();
