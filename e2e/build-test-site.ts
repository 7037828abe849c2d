/**
 * The browser tests' build, into `.test-site/` with the tests' own Effects (e2e/fixtures/effects),
 * run in the background by the global setup (test/support/test-site-build.ts): builds when the site
 * is missing or older than its sources, then writes `ok` or `failed` to `result` in the folder it
 * is given.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { buildSiteIfStale } from "../scripts/site-build";
import { E2E_EFFECTS_ENV } from "../test/support/effects";
import { E2E_CMS_ENV } from "../test/support/github-stand-in";
import { ROOT, TEST_SITE_DIR } from "../test/support/stack";

const dir = process.argv[2];
if (!dir) throw new Error("Usage: tsx e2e/build-test-site.ts RESULT_DIR");
try {
  buildSiteIfStale(ROOT, TEST_SITE_DIR, { ...process.env, ...E2E_EFFECTS_ENV, ...E2E_CMS_ENV });
  writeFileSync(path.join(dir, "result"), "ok");
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  writeFileSync(path.join(dir, "result"), "failed");
  process.exitCode = 1;
}
