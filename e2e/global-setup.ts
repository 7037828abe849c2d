// The browser tests' build, in their copy of the project, published to `.test-site/`: started in
// the background.
import { testBrowserAvailable, testBrowserPath, TEST_BROWSER_HINT } from "../test/support/browser";
import { startTestSiteBuild } from "../test/support/test-site-build";
import { readVariable } from "../supabase/functions/_shared/contract/variables";

/**
 * Runs once before all tests: checks for Chromium (the browser tests are skipped without it, unless
 * CI is set), and starts building the tests' site in their copy of the project
 * (test/support/test-project.ts; never the project's `public/`, which `npm start` serves) when it
 * is missing or older than its sources, and publishing it to `.test-site/`. The other projects'
 * tests run meanwhile; each browser test file waits for the build
 * (test/support/test-site-build.ts).
 */
export default function globalSetup(): void {
  if (!testBrowserAvailable()) {
    if (readVariable(process.env, "CI")) {
      throw new Error(
        `Browser tests need Chromium's headless shell at ${testBrowserPath} and CI is set: ${TEST_BROWSER_HINT}.`,
      );
    }
    console.log(
      `\nBrowser tests skipped: no Chromium's headless shell at ${testBrowserPath}; ${TEST_BROWSER_HINT}.`,
    );
  }
  // Built without Chromium too: e2e/start-freshness.test.ts runs `npm start` on it.
  startTestSiteBuild(process.env);
}
