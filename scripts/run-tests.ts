/**
 * `npm test`: the static checks (`npm run check`, scripts/check.ts) and every Jest project, side by
 * side. The checks run at the lowest CPU priority, which the processes they start inherit, so they
 * take a core only while Jest leaves it idle: on 2 cores Jest keeps them 94 % busy, and the idle
 * rest holds about what the checks cost (45 s against 48 s of CPU), where Jest used to wait 25 s
 * for them first. The checks stay in `npm test`'s session: Linux shares the CPU fairly between
 * sessions first (autogroups), so in a session of their own their low priority would count only
 * among themselves, and they took half of it from Jest. The checks' lines are printed together, amid Jest's, when the last check ends;
 * the command fails when either fails. Its arguments go to Jest:
 * `npm test -- scripts/__tests__/run-tests.test.ts`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { setPriority } from "node:os";
import path from "node:path";
import { readVariable } from "../supabase/functions/_shared/contract/variables.ts";

const ROOT = path.resolve(__dirname, "..");

/** Unix's lowest priority: a process at it gets a core only when nothing else wants it. */
const LOWEST_PRIORITY = 19;

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
 * Runs `check` at the lowest priority, its output held and printed whole when it ends, beside
 * `tests`, whose output goes straight through; resolves to the exit code `npm test` gives: the
 * tests' when they failed, else the check's.
 */
export async function checkBesideTests(check: Command, tests: Command, cwd = ROOT): Promise<number> {
  const checking = spawn(check.command, check.args, {
    cwd,
    env: check.env ?? process.env,
  });
  // Before its first line runs: a child and the processes it starts inherit the priority.
  if (checking.pid !== undefined) setPriority(checking.pid, LOWEST_PRIORITY);
  let said = "";
  checking.stdout.on("data", (chunk: Buffer) => (said += chunk.toString()));
  checking.stderr.on("data", (chunk: Buffer) => (said += chunk.toString()));
  const checked = ended(checking).then((code) => {
    process.stdout.write(`\n${said.trimEnd()}\n\n`);
    return code;
  });

  const testing = spawn(tests.command, tests.args, { cwd, env: tests.env ?? process.env, stdio: "inherit" });
  // Ctrl-C reaches every process of the terminal's group; a signal sent to this one alone is passed
  // on (scripts/check.ts stops the checks it runs).
  const stop = (signal: NodeJS.Signals) => {
    testing.kill(signal);
    checking.kill(signal);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  const [checkCode, testCode] = await Promise.all([checked, ended(testing)]);
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  if (checkCode !== 0) console.error("npm test: the checks failed (above); `npm run check` runs them alone");
  return testCode !== 0 ? testCode : checkCode;
}

async function main(): Promise<void> {
  // PGlite loads its WebAssembly with a dynamic import: Jest's ESM support must be on.
  const nodeOptions = [readVariable(process.env, "NODE_OPTIONS"), "--experimental-vm-modules"]
    .filter(Boolean)
    .join(" ");
  process.exitCode = await checkBesideTests(
    { command: process.execPath, args: ["--import", "tsx", "scripts/check.ts"] },
    {
      command: process.execPath,
      args: [require.resolve("jest/bin/jest"), ...process.argv.slice(2)],
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
    },
  );
}

if (require.main === module) void main();
