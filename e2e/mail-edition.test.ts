/**
 * The Effect's mail as a reader's mail app shows it, rendered by Chromium from the mail.json the
 * build published: readable in the light and the dark colour scheme (axe's contrast rule on every
 * text), its hidden preheader the Effect's summary, and no picture to load.
 */
import AxeBuilder from "@axe-core/playwright";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import type { MailEdition } from "../supabase/functions/_shared/contract/published";
import { launchTestBrowser, VIEWPORTS } from "../test/support/browser";
import { publishedFixtures } from "../test/support/effects";
import { describeInBrowser } from "../test/support/site";
import { TEST_SITE_DIR } from "../test/support/stack";

const effect = publishedFixtures[publishedFixtures.length - 1];
/** The published mail, its unsubscribe placeholder filled in as the sender does. */
const mailHtml = () =>
  (
    JSON.parse(
      readFileSync(path.join(TEST_SITE_DIR, "effects", effect.date, "mail.json"), "utf8"),
    ) as MailEdition
  ).html.replaceAll("{{unsubscribe_url}}", "https://site.example/?unsubscribe=T");

describeInBrowser("the Effect's mail", () => {
  let browser: Browser;
  let html: string;
  beforeAll(async () => {
    html = mailHtml();
    browser = await launchTestBrowser();
  });
  afterAll(() => browser?.close());

  it.each(["light", "dark"] as const)(
    "is readable in the %s colour scheme, at both widths",
    async (scheme) => {
      for (const viewport of Object.values(VIEWPORTS)) {
        // JavaScript on only for axe: the mail has none.
        const context = await browser.newContext({ viewport, colorScheme: scheme });
        try {
          const page = await context.newPage();
          const requests: string[] = [];
          page.on("request", (request) => requests.push(request.url()));
          await page.setContent(html);
          const { violations } = await new AxeBuilder({ page }).withRules(["color-contrast"]).analyze();
          expect(violations.flatMap((violation) => violation.nodes.map((node) => node.html))).toEqual([]);
          // The dark scheme is really applied: the page behind the card is dark.
          const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
          expect(background).toBe(scheme === "dark" ? "rgb(28, 25, 23)" : "rgb(250, 246, 240)");
          expect(requests.filter((url) => !url.startsWith("about:"))).toEqual([]);
        } finally {
          await context.close();
        }
      }
    },
  );

  it("opens with the Effect's summary as its hidden preheader", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.setContent(html);
      const preheader = page.locator("body > div").first();
      expect((await preheader.textContent())?.trim()).toBe(effect.summary.trim());
      expect(await preheader.isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });
});
