import { chromiumAvailable, chromiumPath, INSTALL_HINT } from "../toolkit/browser";
import { buildSiteIfStale } from "../scripts/site-build";
import { E2E_EFFECTS_ENV } from "./support/effects";

/**
 * Runs once before the browser tests: checks for Chromium, and builds the site when `public/` is
 * missing (a fresh clone) or older than its sources, with the tests' own Effects (e2e/fixtures/effects).
 */
export default function globalSetup(): void {
  if (!chromiumAvailable()) {
    if (process.env.CI) {
      throw new Error(`Browser tests need Chromium at ${chromiumPath} and CI is set: ${INSTALL_HINT}.`);
    }
    console.log(`\nBrowser tests skipped: no Chromium at ${chromiumPath}; ${INSTALL_HINT}.`);
    return;
  }
  buildSiteIfStale(undefined, undefined, { ...process.env, ...E2E_EFFECTS_ENV });
}
