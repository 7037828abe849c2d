/**
 * `npm run check`: the project's static checks, each an npm script of its own, run side by side (as
 * many at once as the machine has cores; the longest first), so the command takes as long as the
 * slowest rather than their sum (`npm test` runs it beside Jest: scripts/run-tests.ts). Each
 * check's output is printed whole when it ends, under its name and time, so two checks' lines never
 * interleave; the command fails when any check fails, after all have run, naming each that failed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..");

/** The checks, by their npm script, longest first (tsc and ESLint take most of the time). */
export const CHECKS = [
  "typecheck",
  "lint",
  "format:check",
  "check:cycles",
  "check:docs",
  "check:writes",
  "lint:workflows",
] as const;

const SAY_ALL_IS_WELL = new Set(["format:check", "check:cycles", "lint:workflows"]);

interface Outcome {
  name: string;
  ok: boolean;
  seconds: number;
  output: string;
}

/** The checks running now: a signal that stops this process stops them (npm passes it on). */
const running = new Set<ChildProcess>();

function runCheck(name: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", name], { cwd: ROOT, env: process.env });
    running.add(child);
    child.on("close", () => running.delete(child));
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const done = (ok: boolean, extra = "") =>
      resolve({ name, ok, seconds: (performance.now() - started) / 1000, output: output + extra });
    child.on("error", (error) => done(false, `\n${error.message}`));
    child.on("close", (code, signal) => done(code === 0, signal ? `\nstopped by ${signal}` : ""));
  });
}

async function main(): Promise<void> {
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      for (const child of running) child.kill(signal);
      process.exit(1);
    });
  const queue = [...CHECKS];
  const failed: string[] = [];
  const started = performance.now();
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const outcome = await runCheck(name);
      const output = outcome.output.trimEnd();
      // Prettier, dpdm and actionlint say that all is well in words; the others print only what is wrong.
      const quiet = outcome.ok && (SAY_ALL_IS_WELL.has(name) || output === "");
      console.log(`${outcome.ok ? "ok  " : "FAIL"} ${name} (${outcome.seconds.toFixed(1)} s)`);
      if (!quiet) console.log(output.replace(/^/gm, "  "));
      if (!outcome.ok) failed.push(name);
    }
  };
  const workers = Math.max(1, Math.min(availableParallelism(), CHECKS.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (failed.length > 0) {
    console.error(`check: ${failed.join(", ")} failed (${seconds} s)`);
    process.exit(1);
  }
  console.log(`check: all ${CHECKS.length} passed in ${seconds} s`);
}

if (require.main === module) void main();
