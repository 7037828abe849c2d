import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { decapServerProcess } from "../../scripts/cms";
import { freePort } from "./free-port";
import { startProcess, type StartedProcess } from "./process";
import { ROOT } from "./stack";

export interface DecapServer extends StartedProcess {
  /** Where decap-server answers, e.g. http://127.0.0.1:41235/api/v1 */
  apiUrl: string;
  /** The copy of the project it edits: `content/` there, never the repository's own. */
  repoDir: string;
}

/**
 * Decap's local backend, started as `npm run cms` starts it, on a free loopback port and editing a
 * temporary copy of `content/`, so a test saves through the CMS without touching the repository.
 */
export async function startDecapServer(timeoutMs = 30_000): Promise<DecapServer> {
  const port = await freePort();
  const repoDir = mkdtempSync(path.join(tmpdir(), "purpose-cms-"));
  cpSync(path.join(ROOT, "content"), path.join(repoDir, "content"), { recursive: true });
  const { command, args, env } = decapServerProcess(repoDir, port);
  let started: StartedProcess;
  try {
    started = await startProcess(command, args, { cwd: repoDir, env, ready: /listening on/i, timeoutMs });
  } catch (error) {
    rmSync(repoDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...started,
    stop: (graceMs?: number) =>
      started.stop(graceMs).finally(() => rmSync(repoDir, { recursive: true, force: true })),
    apiUrl: `http://127.0.0.1:${port}/api/v1`,
    repoDir,
  };
}
