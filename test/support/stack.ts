/**
 * The local stack as a visitor meets it (`npm run serve`: the built site and the functions on one
 * origin), started as its own process on a free loopback port with a fresh data folder, for the
 * browser tests and the benchmarks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { readVariable } from "../../supabase/functions/_shared/contract/variables.ts";
import { freePort } from "./free-port";
import { npmScript, startProcess } from "./process";
import { DATA_FOLDERS } from "./data-folders";
import { copyMigratedPglite } from "./pglite-template";

export const ROOT = path.resolve(__dirname, "../..");
/**
 * Where the browser tests' site is built (with their fixture Effects) and served from, so their
 * build never replaces the `public/` that `npm start` serves.
 */
export const TEST_SITE_DIR = path.join(ROOT, ".test-site");

export interface Stack {
  /** The site's origin, e.g. http://127.0.0.1:41234 */
  url: string;
  dataDir: string;
  outbox: string;
  /** Everything the server printed so far, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

export async function startStack(env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Stack> {
  // A caller that must name the address before the stack starts (another server points at it) picks the port.
  const chosen = readVariable(env, "PORT");
  const port = chosen ? Number(chosen) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(DATA_FOLDERS, "purpose-e2e-"));
  try {
    // PGlite's database already migrated (a copy of the tests' template): creating one costs seconds.
    if (!readVariable(env, "DATABASE_URL")) await copyMigratedPglite(dataDir);
    // `npm run serve`'s own command, in one process (npm's costs a third of a second of CPU).
    const server = await startProcess(process.execPath, npmScript("serve"), {
      cwd: ROOT,
      env: {
        ...process.env,
        // Never the owner's own database or mail server from the shell: PGlite and the outbox,
        // unless the caller names them.
        DATABASE_URL: "",
        SMTP_URL: "",
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: dataDir,
        SITE_URL: url,
        ...env,
      },
      ready: /Listening on (http:\/\/\S+)/,
      timeoutMs,
    });
    return {
      url,
      dataDir,
      outbox: path.join(dataDir, "outbox"),
      output: server.output,
      stop: () => server.stop().finally(() => rmSync(dataDir, { recursive: true, force: true })),
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
