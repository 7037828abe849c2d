/**
 * Gatsby's scripts wait for the visitor (src/loading/script-starter.ts): nothing is fetched while
 * the page paints, the first interaction starts them, a mail link starts them at once, and a click
 * on a signup trigger made before they arrive still ends with the dialog open.
 */
import type { Request } from "playwright-core";
import { holdRequests } from "./support/held-requests";
import { gone, isFocused, visible } from "./support/expect";
import { cardInView } from "./support/newsletter";
import { describeInBrowser, useSite } from "./support/site";
import { SPEC } from "../toolkit/texts";
import { untilHydrated } from "../toolkit/browser";

/** Gatsby's own bundles: the runtime, React, the app, the page's code. */
const GATSBY_BUNDLE = /\/(webpack-runtime|framework|app|component---[^/]+)-[0-9a-f]+\.js$/;

describeInBrowser("the page's scripts", () => {
  const site = useSite();

  it("are not fetched until the visitor interacts, and the first mouse move starts them", async () => {
    const bundles: Request[] = [];
    const { page } = await site.visit("/", undefined, {
      untilHydrated: false,
      prepare: async (context) => {
        context.on("request", (request) => {
          if (GATSBY_BUNDLE.test(new URL(request.url()).pathname)) bundles.push(request);
        });
      },
    });
    await page.waitForLoadState("load");
    await page.waitForTimeout(1_000);
    expect(bundles).toEqual([]);
    // Before the scripts, the triggers lead to the card.
    expect(await page.getByRole("link", { name: SPEC.joinTheMovement }).getAttribute("href")).toBe(
      "#newsletter",
    );

    await untilHydrated(page);
    expect(bundles.length).toBeGreaterThanOrEqual(3);
    expect(await page.getByRole("button", { name: SPEC.joinTheMovement }).count()).toBe(1);
  });

  it("an interaction while the hero picture is still loading waits for the page to load", async () => {
    const context = await site.browser.newContext();
    try {
      const release = await holdRequests(context, /\/hero\.(avif|webp|jpg)$/);
      const bundles: string[] = [];
      context.on("request", (request) => {
        if (GATSBY_BUNDLE.test(new URL(request.url()).pathname)) bundles.push(request.url());
      });
      const page = await context.newPage();
      await page.goto(`${site.url}/`, { waitUntil: "domcontentloaded" });
      await page.mouse.move(5, 5);
      await page.mouse.wheel(0, 200);
      await page.waitForTimeout(500);
      expect(bundles).toEqual([]);
      release();
      await untilHydrated(page);
      expect(bundles.length).toBeGreaterThanOrEqual(3);
    } finally {
      await context.close();
    }
  });

  it("start at once for a visitor who arrives from a mail link", async () => {
    const { page } = await site.visit("/?unsubscribe=not-a-real-token", undefined, { untilHydrated: false });
    // No interaction: the link's screen appears by itself.
    await visible(page.getByRole("dialog"), 15_000);
  });

  it("a click on Join the Movement before they arrive shows it is working, then opens the dialog", async () => {
    let release!: () => void;
    const { page } = await site.visit("/", undefined, {
      untilHydrated: false,
      prepare: async (context) => {
        release = await holdRequests(context, GATSBY_BUNDLE);
      },
    });
    const trigger = page.getByRole("link", { name: SPEC.joinTheMovement });
    await trigger.click();
    expect(await trigger.getAttribute("aria-busy")).toBe("true");
    // The click did not jump to the card: the visitor asked for the dialog.
    expect(new URL(page.url()).hash).toBe("");
    release();

    const dialog = await visible(page.getByRole("dialog", { name: SPEC.joinTheMovement }), 15_000);
    expect(await isFocused(dialog.getByRole("textbox"))).toBe(true);
    await page.keyboard.press("Escape");
    await gone(dialog);
    // Focus returns to the trigger, a button by now.
    expect(await isFocused(page.getByRole("button", { name: SPEC.joinTheMovement }))).toBe(true);
  });

  it("a click on Sign Up when the scripts cannot load leads to the card instead", async () => {
    const { page } = await site.visit("/", undefined, {
      untilHydrated: false,
      prepare: async (context) => {
        await context.route(GATSBY_BUNDLE, (route) => route.abort("blockedbyclient"));
      },
    });
    await page.getByRole("link", { name: SPEC.signUp }).click();
    await page.waitForURL(`${site.url}/#newsletter`);
    expect(await cardInView(page)).toBe(true);
    expect(await page.getByRole("dialog").count()).toBe(0);
    // Later clicks are plain links.
    await page.getByRole("link", { name: SPEC.listenNow }).click();
    expect(await page.getByRole("link", { name: SPEC.listenNow }).getAttribute("aria-busy")).toBeNull();
  });
});
