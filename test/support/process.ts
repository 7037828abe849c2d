/**
 * Starts a server as a child process, waits until it prints that it listens, and stops it with
 * everything it started: the one process starter of tests and benchmarks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { eventually } from "./eventually";

const ROOT = path.resolve(__dirname, "../..");

export interface StartedProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGTERM to its process group, SIGKILL after `graceMs`; resolves once none of it remains. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Printed once it takes requests, e.g. /Listening on (http:\/\/\S+)/. */
  ready: RegExp;
  timeoutMs?: number;
}

const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** True once process group `pid` has gone within `timeoutMs`; false if some of it still runs. */
const groupGone = (pid: number, timeoutMs: number): Promise<boolean> =>
  eventually(() => !groupAlive(pid), {
    what: `process group ${pid} to exit`,
    timeoutMs,
    intervalMs: 50,
  }).then(
    () => true,
    () => false,
  );

async function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, "SIGTERM");
  if (await groupGone(pid, graceMs)) return;
  process.kill(-pid, "SIGKILL");
  // Bounded: an orphan that nobody reaps stays visible as a zombie.
  await groupGone(pid, 2_000);
}

/**
 * V8 flags for the Node processes the tests start (and the benchmarks' stacks, which serve pages
 * and are not what they measure), and for Jest's own (scripts/run-tests.ts). `--liftoff-only`:
 * PGlite's WebAssembly is compiled by V8's baseline compiler only. A test's command or stack
 * lives for seconds, and the optimizing compiler's work on PGlite's hot functions cost more than it
 * saved there: an `effect status` on a PGlite folder took 2.9 s of CPU with it and 1.9 s without,
 * a stack's start 2.3 and 1.6 s (the same code and results; a long-lived server is better served
 * by V8's default).
 * `--max-opt=2`: for the same reason, JavaScript goes no further than V8's mid-tier compiler
 * (Maglev), not its optimizing one (TurboFan): a `subscribers stats` took 0.98 s of CPU with the
 * flag and 1.08 s without, an `effect status` 0.42 and 0.47, a stack's start and 60 pages 1.27
 * and 1.40 (the mean of 6 to 8 interleaved runs).
 */
export const TEST_NODE_FLAGS = ["--liftoff-only", "--max-opt=2"];

/**
 * The arguments to `process.execPath` that run one of the project's TypeScript programs as
 * package.json's scripts do (`node scripts/run-typescript.cjs FILE ARGS`: one Node process, the
 * program bundled once and then required), with TEST_NODE_FLAGS.
 */
export const typeScript = (file: string, ...args: string[]): string[] => [
  ...TEST_NODE_FLAGS,
  path.join(ROOT, "scripts", "run-typescript.cjs"),
  file,
  ...args,
];

/**
 * The arguments to `process.execPath` that run package.json's script `name` (a `node ...`
 * command, as every script that starts a program of ours is) with TEST_NODE_FLAGS: what
 * `npm run NAME` runs, without npm's own Node process.
 */
export function npmScript(name: string): string[] {
  const scripts = (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const words = scripts[name]?.split(" ");
  if (words?.[0] !== "node" || words.some((word) => /["'$&|;<>]/.test(word)))
    throw new Error(`package.json's script "${name}" is not a plain node command: ${scripts[name]}`);
  return [...TEST_NODE_FLAGS, ...words.slice(1)];
}

/**
 * Spawns `command` in its own process group (so a stop reaches npm and the node process behind
 * it) and resolves with the `ready` match once it appears; rejects, after stopping
 * it, if the process exits first or `timeoutMs` passes.
 */
export async function startProcess(
  command: string,
  args: string[],
  options: StartOptions,
): Promise<StartedProcess & { ready: RegExpExecArray }> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const started: StartedProcess = {
    child,
    output: () => output,
    stop: (graceMs = 5_000) => stopGroup(child, graceMs),
  };
  const name = [command, ...args].join(" ");
  try {
    const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} did not start within ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
        const match = options.ready.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      };
      child.stdout?.on("data", collect);
      child.stderr?.on("data", collect);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${output}`));
      });
    });
    return { ...started, ready };
  } catch (error) {
    await started.stop();
    throw error;
  }
}
