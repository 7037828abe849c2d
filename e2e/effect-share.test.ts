// The Effect page's share button in Chromium: the device's share sheet where there is one, the
// link copied where there is not, a notice either way, and no dead button without JavaScript.
import type { BrowserContext } from "playwright-core";
import { VIEWPORTS } from "../test/support/browser";
import { effectTexts, publishedFixtures } from "../test/support/effects";
import { isFocused, notice, visible } from "../test/support/expect";
import { describeInBrowser, useSite } from "../test/support/site";

const effect = publishedFixtures[3];
const path = `/effects/${effect.date}/`;
const canonical = `https://thepurposeeffect.example${path}`;
const texts = effectTexts.effect.share;

/** A browser with a share sheet (as on a phone), which records what it was given. */
const withShareSheet = (context: BrowserContext) =>
  context.addInitScript(() => {
    const shared: ShareData[] = [];
    Object.assign(window, { shared });
    Object.defineProperty(Navigator.prototype, "share", {
      configurable: true,
      value: async (data: ShareData) => {
        shared.push({ title: data.title, url: data.url });
      },
    });
  });

/** A browser without one (as most desktop browsers), which may write to the clipboard. */
const withoutShareSheet = (origin: () => string) => async (context: BrowserContext) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: origin() });
  await context.addInitScript(() => {
    delete (Navigator.prototype as { share?: unknown }).share;
  });
};

describeInBrowser("sharing an Effect", () => {
  const site = useSite();

  it("opens the device's share sheet with the Effect's title and address, then thanks the reader", async () => {
    const { page } = await site.visit(path, VIEWPORTS.mobile, { prepare: withShareSheet });
    await (await visible(page.getByRole("button", { name: texts.label }))).click();
    await visible(notice(page, "success", texts.sharedTitle));
    expect(await page.evaluate(() => (window as unknown as { shared: ShareData[] }).shared)).toEqual([
      { title: effect.title, url: canonical },
    ]);
  });

  it("copies the Effect's address where there is no share sheet, and says so", async () => {
    const { page } = await site.visit(path, VIEWPORTS.desktop, {
      prepare: withoutShareSheet(() => site.url),
    });
    const button = page.getByRole("button", { name: texts.label });
    // From the keyboard, as from the mouse.
    await button.focus();
    expect(await isFocused(button)).toBe(true);
    await page.keyboard.press("Enter");
    await visible(notice(page, "success", texts.copiedTitle));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(canonical);
  });

  it("says so when the link cannot be copied either", async () => {
    const { page } = await site.visit(path, VIEWPORTS.desktop, {
      prepare: (context) =>
        context.addInitScript(() => {
          delete (Navigator.prototype as { share?: unknown }).share;
          Object.defineProperty(Navigator.prototype, "clipboard", {
            configurable: true,
            get: () => ({ writeText: () => Promise.reject(new DOMException("denied", "NotAllowedError")) }),
          });
        }),
    });
    await page.getByRole("button", { name: texts.label }).click();
    await visible(notice(page, "failure", texts.failedTitle));
  });

  it("offers no button without JavaScript, where it could do nothing", async () => {
    const { page } = await site.visit(path, VIEWPORTS.mobile, { javaScript: false });
    await visible(page.getByRole("heading", { level: 1, name: effect.title }));
    expect(await page.getByRole("button", { name: texts.label }).count()).toBe(0);
  });
});
