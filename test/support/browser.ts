/**
 * Debian's Chromium through playwright-core: where it is, its flags, the two widths, hydration.
 * Two builds of the same Chromium: the tests drive its headless shell (Debian's
 * `chromium-headless-shell`, what Playwright's own headless mode runs), the same engine without the
 * desktop browser's parts, at about half the CPU a page; the screenshots and the benchmarks drive
 * the browser a visitor has (`chromium`).
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { readTextVariable } from "../../supabase/functions/_shared/contract/variables";

/** Debian's Chromium, as a visitor runs it; never a browser download. Another with CHROMIUM_PATH. */
export const chromiumPath = readTextVariable(process.env, "CHROMIUM_PATH");

/** Debian's headless shell of the same Chromium, for the tests. Another with CHROMIUM_SHELL_PATH. */
export const testBrowserPath = readTextVariable(process.env, "CHROMIUM_SHELL_PATH");

/** Flags for Chromium in a container: no sandbox (root), no GPU, no background traffic. */
export const chromiumFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const INSTALL_HINT = "install it with `apt-get install chromium` or set CHROMIUM_PATH";
export const TEST_BROWSER_HINT =
  "install it with `apt-get install chromium-headless-shell` or set CHROMIUM_SHELL_PATH";

export const chromiumAvailable = (): boolean => existsSync(chromiumPath);
export const testBrowserAvailable = (): boolean => existsSync(testBrowserPath);

/** The browser a visitor has: for the screenshots and the benchmarks. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
}

/** The tests' browser: Chromium's headless shell. */
export function launchTestBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: testBrowserPath, args: chromiumFlags });
}

/** The two widths every visual and accessibility check runs at. */
export const VIEWPORTS = {
  mobile: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
} as const;

/**
 * Waits, doing nothing a visitor would not, until React has taken over the pre-rendered HTML: the
 * page's scripts start by themselves once it has loaded (src/loading/script-starter.ts).
 */
export async function untilHydrated(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const root = document.getElementById("gatsby-focus-wrapper");
      return root !== null && Object.keys(root).some((key) => key.startsWith("__reactFiber"));
    },
    undefined,
    { timeout: 15_000 },
  );
}
