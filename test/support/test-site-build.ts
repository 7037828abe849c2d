/**
 * The browser tests' site, built in the background: the e2e project's global setup starts the build
 * (`e2e/build-test-site.ts`: `buildSiteIfStale` in `.test-project/`, published to `.test-site/`)
 * and returns, so the backend's and the site's tests run while Gatsby builds; each browser test
 * file's environment (`test/support/jest/environment-e2e.js`) waits for the build before the file
 * is loaded, and Jest's sequencer (`test/support/jest/sequencer.js`) runs the browser tests last.
 * The build's output goes to a log in a folder of its own, named to the test workers by
 * E2E_SITE_BUILD_DIR; the build writes `result` there (`ok`, or `failed`) as it ends.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readVariable } from "../../supabase/functions/_shared/contract/variables";
import { ROOT } from "./stack";
import { typeScript } from "./process";

/** Starts the build in the background; the workers Jest starts next find its folder in the environment. */
export function startTestSiteBuild(env: NodeJS.ProcessEnv): void {
  const dir = mkdtempSync(path.join(tmpdir(), "e2e-site-build-"));
  const log = openSync(path.join(dir, "log"), "w");
  // A process group of its own: the teardown stops Gatsby with it.
  const build = spawn(process.execPath, typeScript(path.join(ROOT, "e2e/build-test-site.ts"), dir), {
    cwd: ROOT,
    env,
    stdio: ["ignore", log, log],
    detached: true,
  });
  build.unref();
  writeFileSync(path.join(dir, "pid"), String(build.pid));
  build.on("exit", (code, signal) => {
    // A build killed before it could say how it ended.
    try {
      readFileSync(path.join(dir, "result"));
    } catch {
      writeFileSync(
        path.join(dir, "result"),
        `failed (the build process ended: ${signal ?? `exit ${code}`})`,
      );
    }
  });
  process.env.E2E_SITE_BUILD_DIR = dir;
}

/** After the browser tests: the build stopped if it still runs, its folder removed, what it said on failure printed. */
export function stopTestSiteBuild(): void {
  const dir = readVariable(process.env, "E2E_SITE_BUILD_DIR");
  if (!dir) return;
  let result = "";
  try {
    result = readFileSync(path.join(dir, "result"), "utf8");
  } catch {
    // Still building: the browser tests did not wait for it (none ran, or the run was stopped).
    try {
      process.kill(-Number(readFileSync(path.join(dir, "pid"), "utf8")), "SIGTERM");
    } catch {
      // Gone meanwhile.
    }
  }
  const said = readFileSync(path.join(dir, "log"), "utf8");
  const summary = said
    // eslint-disable-next-line no-control-regex -- Gatsby's colours
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .filter((line) => /^(Building the site|The site is up to date|info Done building)/.test(line));
  console.log(
    `\nThe browser tests' site: ${result || "stopped"}.${summary.length ? `\n${summary.join("\n")}` : ""}`,
  );
  if (result !== "ok") console.log(said);
  rmSync(dir, { recursive: true, force: true });
}
