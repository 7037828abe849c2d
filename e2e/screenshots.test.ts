import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { VIEWPORTS } from "../toolkit/browser";
import { untilAnimationsSettle } from "./support/expect";
import { scrollToBottom } from "../toolkit/first-visit";
import { openSignupDialog } from "./support/newsletter";
import { publishedFixtures } from "./support/effects";
import { describeInBrowser, useSite } from "./support/site";
import { SIGNUP_RESULT_PAGES } from "../supabase/functions/_shared/http/signup-result-pages";

/** Pictures for people to look at (ignored by git); the tests only check they were written. */
const DIR = path.join(__dirname, "screenshots");

async function picture(page: Page, name: string, fullPage: boolean): Promise<void> {
  await untilAnimationsSettle(page);
  const file = path.join(DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  expect(statSync(file).size).toBeGreaterThan(10_000);
}

describeInBrowser("screenshots", () => {
  const site = useSite();

  beforeAll(() => mkdirSync(DIR, { recursive: true }));

  describe.each(Object.entries(VIEWPORTS))("at %s width", (_name, viewport) => {
    const width = viewport.width;

    it(`pictures the landing page at ${width} px`, async () => {
      const { page } = await site.visit("/", viewport);
      // Lazy images below the fold load on the way down, as they would for a reader.
      await scrollToBottom(page);
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: "instant" }));
      await page.waitForLoadState("networkidle");
      await picture(page, `landing-${width}`, true);
    });

    it(`pictures the open dialog at ${width} px`, async () => {
      const { page } = await site.visit("/", viewport);
      await openSignupDialog(page);
      await picture(page, `dialog-${width}`, false);
    });

    it(`pictures the archive of past Effects at ${width} px`, async () => {
      const { page } = await site.visit("/effects/", viewport);
      await picture(page, `effects-archive-${width}`, true);
    });

    it(`pictures an Effect's page at ${width} px`, async () => {
      const { page } = await site.visit(`/effects/${publishedFixtures[5].date}/`, viewport);
      await picture(page, `effect-${width}`, true);
    });

    it(`pictures the landing page without JavaScript at ${width} px`, async () => {
      // The first screen a visitor sees before the scripts start, and the whole page without them.
      const { page } = await site.visit("/", viewport, { javaScript: false });
      await picture(page, `landing-no-js-${width}`, true);
    });

    it(`pictures the welcome page a signup without JavaScript lands on at ${width} px`, async () => {
      const { page } = await site.visit(SIGNUP_RESULT_PAGES.subscribed, viewport, { javaScript: false });
      await picture(page, `signup-welcome-${width}`, true);
    });

    it(`pictures the 404 page at ${width} px`, async () => {
      const { page } = await site.visit("/no-such-page", viewport);
      await picture(page, `not-found-${width}`, true);
    });
  });
});
