import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { VIEWPORTS } from "../test/support/browser";
import { notice, untilAnimationsSettle, visible } from "../test/support/expect";
import { openSignupDialog, subscribeInline } from "../test/support/newsletter";
import { describeInBrowser, uniqueAddress, useSite } from "../test/support/site";
import { SPEC } from "../test/support/texts";
import { publishedFixtures } from "../test/support/effects";
import { SIGNUP_RESULT_PAGES } from "../supabase/functions/_shared/contract/signup-result-pages";

/**
 * axe-core's findings, one line per failing element, so a failure says what to fix. Every rule
 * runs; only the violations are reported element by element (axe's `resultTypes`: the passes, of
 * which there are hundreds a page, name one element each instead of all, which spares axe making a
 * selector for each and the page sending them back).
 */
async function violations(page: Page): Promise<string[]> {
  await untilAnimationsSettle(page);
  const { violations: found } = await new AxeBuilder({ page })
    .options({ resultTypes: ["violations"] })
    .analyze();
  return found.flatMap((violation) =>
    violation.nodes.map(
      (node) => `${violation.id} (${violation.impact}): ${node.target.join(" ")}: ${violation.help}`,
    ),
  );
}

describeInBrowser("accessibility", () => {
  const site = useSite();

  describe.each(Object.entries(VIEWPORTS))("at %s width", (_name, viewport) => {
    it("finds no violations on the landing page", async () => {
      const { page } = await site.visit("/", viewport);
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations on the landing page before its scripts run (as without JavaScript)", async () => {
      const { page } = await site.visit("/", viewport, { untilHydrated: false });
      expect(await page.getByRole("link", { name: SPEC.joinTheMovement }).count()).toBe(1);
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations on the pages a signup without JavaScript lands on", async () => {
      for (const pagePath of Object.values(SIGNUP_RESULT_PAGES)) {
        const { page } = await site.visit(pagePath, viewport, { untilHydrated: false });
        expect(await violations(page)).toEqual([]);
      }
    });

    it("finds no violations with the signup dialog open", async () => {
      const { page } = await site.visit("/", viewport);
      await openSignupDialog(page);
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations with a welcome notice showing", async () => {
      const { page } = await site.visit("/", viewport);
      await subscribeInline(page, uniqueAddress("a11y"));
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations with a failure notice showing over the dialog", async () => {
      const { page } = await site.visit("/", viewport);
      await page.route("**/functions/v1/send-confirmation", (route) =>
        route.fulfill({ status: 500, body: "{}" }),
      );
      const { dialog, field } = await openSignupDialog(page);
      await field.fill(uniqueAddress("a11y-failure"));
      await dialog.getByRole("button", { name: SPEC.joinNow }).click();
      await visible(notice(page, "failure", SPEC.failureTitle));
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations on the archive of past Effects", async () => {
      const { page } = await site.visit("/effects/", viewport);
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations on the archive showing search results", async () => {
      const { page } = await site.visit("/effects/", viewport);
      await page.getByRole("searchbox").fill("paragraph");
      await visible(
        page
          .getByRole("list", { name: /paragraph/ })
          .getByRole("link")
          .first(),
      );
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations on an Effect's page", async () => {
      const { page } = await site.visit(`/effects/${publishedFixtures[5].date}/`, viewport);
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations on the privacy page", async () => {
      const { page } = await site.visit("/privacy/", viewport);
      expect(await violations(page)).toEqual([]);
    });

    it("finds no violations on the 404 page", async () => {
      const { page } = await site.visit("/no-such-page", viewport);
      expect(await violations(page)).toEqual([]);
    });
  });
});
