/**
 * The browser tests' build, run in the background by the global setup (test/support/test-site-build.ts):
 * brings the tests' copy of the project up to date (`.test-project/`, test/support/test-project.ts),
 * builds it there with the tests' own Effects (e2e/fixtures/effects) when its site is missing or
 * older than its sources, publishes its pages to `.test-site/`, then writes `ok` or `failed` to
 * `result` in the folder it is given.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { buildSiteIfStale } from "../scripts/site-build";
import {
  publishTestSite,
  syncTestProject,
  TEST_PROJECT_DIR,
  TEST_PROJECT_ENV,
} from "../test/support/test-project";

const dir = process.argv[2];
if (!dir) throw new Error("Usage: tsx e2e/build-test-site.ts RESULT_DIR");
try {
  syncTestProject();
  buildSiteIfStale(TEST_PROJECT_DIR, path.join(TEST_PROJECT_DIR, "public"), {
    ...process.env,
    ...TEST_PROJECT_ENV,
  });
  publishTestSite();
  writeFileSync(path.join(dir, "result"), "ok");
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  writeFileSync(path.join(dir, "result"), "failed");
  process.exitCode = 1;
}
