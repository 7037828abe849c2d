// The browser tests' build, into `.test-site/`.
import { chromiumAvailable, chromiumPath, INSTALL_HINT } from "../test/support/browser";
import { buildSiteIfStale } from "../scripts/site-build";
import { E2E_EFFECTS_ENV } from "../test/support/effects";
import { E2E_CMS_ENV } from "../test/support/github-stand-in";
import { ROOT, TEST_SITE_DIR } from "../test/support/stack";
import { readVariable } from "../supabase/functions/_shared/contract/variables";

/**
 * Runs once before the browser tests: checks for Chromium, and builds the tests' site into
 * `.test-site/` (never `public/`, which `npm start` serves) when it is missing or older than its
 * sources, with the tests' own Effects (e2e/fixtures/effects).
 */
export default function globalSetup(): void {
  if (!chromiumAvailable()) {
    if (readVariable(process.env, "CI")) {
      throw new Error(`Browser tests need Chromium at ${chromiumPath} and CI is set: ${INSTALL_HINT}.`);
    }
    console.log(`\nBrowser tests skipped: no Chromium at ${chromiumPath}; ${INSTALL_HINT}.`);
    return;
  }
  buildSiteIfStale(ROOT, TEST_SITE_DIR, { ...process.env, ...E2E_EFFECTS_ENV, ...E2E_CMS_ENV });
}
