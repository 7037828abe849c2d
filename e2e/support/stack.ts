import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

export interface Stack {
  /** The site's origin, e.g. http://127.0.0.1:41234 */
  url: string;
  dataDir: string;
  outbox: string;
  /** Everything the server printed so far, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

/** A port nobody listens on right now, on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (address && typeof address === "object" ? resolve(address.port) : reject()));
    });
  });
}

const READY = /Listening on (http:\/\/\S+)/;

export interface Started {
  /** Everything the process printed so far, for failure messages. */
  output: () => string;
  /** Stops the process and everything it started. */
  stop: () => Promise<void>;
}

/**
 * Starts a command in its own process group (so stopping it reaches whatever it started, e.g. tsx
 * behind npm) and resolves once its standard output matches `ready`.
 */
export async function startProcess(options: {
  what: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  ready: RegExp;
  timeoutMs: number;
  /** Runs after the process is gone, e.g. to remove its data. */
  cleanup?: () => void;
}): Promise<Started> {
  const { what, timeoutMs } = options;
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: options.env,
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);

  const stop = () => stopProcessGroup(child).finally(() => options.cleanup?.());

  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
      const onData = () => {
        if (options.ready.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on("data", onData);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited (${signal ?? code}) before listening:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { output: () => output, stop };
}

/**
 * Starts the local stack (`npm run serve`: the built site and the functions on one origin) on a
 * free loopback port with a fresh data directory, and resolves once it says it is listening.
 */
export async function startStack(env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Stack> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "purpose-e2e-"));
  const started = await startProcess({
    what: "The local stack",
    command: "npm",
    args: ["run", "serve"],
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
      SITE_URL: url,
      ...env,
    },
    ready: READY,
    timeoutMs,
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  });
  return { url, dataDir, outbox: path.join(dataDir, "outbox"), ...started };
}

const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * SIGTERM, then SIGKILL to whatever is left of the group after a grace period; resolves once no
 * process of the group remains, so its data directory can go.
 */
async function stopProcessGroup(child: ChildProcess, graceMs = 5_000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (!groupAlive(pid)) return;
  process.kill(-pid, "SIGKILL");
  // Bounded: an orphan that nobody reaps stays visible as a zombie.
  const killDeadline = Date.now() + 2_000;
  while (groupAlive(pid) && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 50));
}
