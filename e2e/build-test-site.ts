/**
 * The browser tests' build, run in the background by the global setup
 * (test/support/test-site-build.ts): brings the tests' copy of the project up to date
 * (`.test-project/`, test/support/test-project.ts), builds it there with the tests' own Effects
 * (e2e/fixtures/effects) when its site is missing or older than its sources, publishes its pages to
 * `.test-site/` when they are new, then writes `ok` or `failed` to `result` in the folder it is
 * given.
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildSiteIfStale } from "../scripts/site-build";
import {
  publishTestSite,
  syncTestProject,
  TEST_PROJECT_DIR,
  TEST_PROJECT_ENV,
} from "../test/support/test-project";
import { ROOT } from "../test/support/stack";

const dir = process.argv[2];
if (!dir) throw new Error("Usage: node scripts/run-typescript.cjs e2e/build-test-site.ts RESULT_DIR");
try {
  // Left by the runs before the tests' site was built in a copy: its Gatsby cache (60 MB and more),
  // and the copy `npm start`'s test made for itself when it was stopped.
  for (const old of [".test-site-cache", ".start-copy"])
    rmSync(path.join(ROOT, old), { recursive: true, force: true });
  syncTestProject();
  const built = buildSiteIfStale(TEST_PROJECT_DIR, path.join(TEST_PROJECT_DIR, "public"), {
    ...process.env,
    ...TEST_PROJECT_ENV,
  });
  publishTestSite(built);
  writeFileSync(path.join(dir, "result"), "ok");
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  writeFileSync(path.join(dir, "result"), "failed");
  process.exitCode = 1;
}
