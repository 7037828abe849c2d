/**
 * Gatsby's scripts wait for the page to load (src/loading/script-starter.ts): nothing is fetched
 * while the page paints, they then come by themselves with nobody touching the page, a mail link
 * starts them at once, and a click on a signup trigger made before they arrive still ends with the
 * dialog open.
 */
import type { Page } from "playwright-core";
import { holdRequests } from "../test/support/held-requests";
import { gone, isFocused, visible } from "../test/support/expect";
import { cardInView } from "../test/support/newsletter";
import { describeInBrowser, GATSBY_BUNDLE, useSite } from "../test/support/site";
import { SPEC } from "../test/support/texts";
import { launchTestBrowser, untilHydrated, VIEWPORTS } from "../test/support/browser";
import { COMPILE_HINT } from "../build/compile-hints";
import packageJson from "../package.json";

/** Webpack's list of chunks on `self`: "webpackChunk" and the package's name as an identifier. */
const WEBPACK_CHUNK_LIST = `webpackChunk${packageJson.name.replace(/[^a-zA-Z0-9$]+/g, "_")}`;

/** When each of Gatsby's bundles was requested, and when `load` ended, on the page's clock. */
async function bundleTimes(page: Page): Promise<{ loadEnd: number; bundleStarts: number[] }> {
  const times = await page.evaluate(() => ({
    loadEnd: (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd,
    resources: performance
      .getEntriesByType("resource")
      .map((entry) => [entry.name, entry.startTime] as const),
  }));
  return {
    loadEnd: times.loadEnd,
    bundleStarts: times.resources
      .filter(([url]) => GATSBY_BUNDLE.test(new URL(url).pathname))
      .map(([, startTime]) => startTime),
  };
}

describeInBrowser("the page's scripts", () => {
  const site = useSite();

  it("come by themselves once the page has loaded, with nobody touching it", async () => {
    // The visit only navigates and waits: no pointer, key, scroll or touch.
    const { page } = await site.visit("/");
    const { loadEnd, bundleStarts } = await bundleTimes(page);
    expect(bundleStarts.length).toBeGreaterThanOrEqual(3);
    // None was fetched while the page painted.
    expect(bundleStarts.filter((startTime) => startTime < loadEnd)).toEqual([]);
    // The triggers, links to the card before the scripts, now open the dialog.
    expect(await page.getByRole("button", { name: SPEC.joinTheMovement }).count()).toBe(1);
  });

  it("wait until the largest element, the hero picture, is on the screen, in a browser just started", async () => {
    // A browser just started fires `load`, and has idle moments, before it shows its first frame in
    // about half the loads here: with a starter that waited for `load` and an idle moment only,
    // 5 of 10 such loads fetched React before the picture was shown. Each visit in a new browser.
    // The starter waits for the picture's own largest-contentful-paint entry: when it took the
    // picture as shown two frames after it decoded, a machine whose cores were all busy (two test
    // files at once on 2 cores) could present the picture after those frames, and the scripts
    // started a few ms before it (1 fresh-clone run in 6).
    for (let visit = 0; visit < 6; visit++) {
      const browser = await launchTestBrowser();
      try {
        const page = await (await browser.newContext({ viewport: VIEWPORTS.mobile })).newPage();
        await page.goto(`${site.url}/`);
        await untilHydrated(page);
        // When the picture was shown: the page's last largest-contentful-paint entry.
        const shown = await page.evaluate(
          () =>
            new Promise<{ at: number; element: string }>((resolve) => {
              new PerformanceObserver((list) => {
                const last = list.getEntries().at(-1) as PerformanceEntry & { element: Element | null };
                resolve({ at: last.startTime, element: last.element?.tagName ?? "" });
              }).observe({ type: "largest-contentful-paint", buffered: true });
            }),
        );
        expect(shown.element).toBe("IMG");
        const { bundleStarts } = await bundleTimes(page);
        expect(bundleStarts.length).toBeGreaterThanOrEqual(3);
        expect(bundleStarts.filter((startTime) => startTime < shown.at)).toEqual([]);
      } finally {
        await browser.close();
      }
    }
  });

  it("run one a task in the page's order, React starting in its own file's task and Gatsby in its", async () => {
    const { page } = await site.visit("/", undefined, {
      prepare: (context) =>
        context.addInitScript((chunkList: string) => {
          const w = window as unknown as Record<string, unknown>;
          // A script's load event follows its run.
          const ran: string[] = (w.scriptsRun = []);
          document.addEventListener(
            "load",
            (event) => {
              if (event.target instanceof HTMLScriptElement && event.target.src)
                ran.push(new URL(event.target.src).pathname);
            },
            true,
          );
          // Webpack's chunk list, as its runtime will find it: which file's run adds a chunk that
          // starts something (webpack calls its start function with its `require` at once).
          const startedBy: string[] = (w.startedBy = []);
          const list: unknown[] = [];
          let push = list.push;
          Object.defineProperty(list, "push", {
            get: () => push,
            set: (webpacks: (data: unknown[]) => unknown) => {
              push = function (this: unknown, data: unknown[]) {
                const script = document.currentScript as HTMLScriptElement | null;
                if (typeof data[2] === "function")
                  startedBy.push(script ? new URL(script.src).pathname : "?");
                return webpacks.call(this, data);
              } as typeof push;
            },
          });
          w[chunkList] = list;
        }, WEBPACK_CHUNK_LIST),
    });
    const { ran, startedBy } = await page.evaluate(() => ({
      ran: (window as unknown as { scriptsRun: string[] }).scriptsRun,
      startedBy: (window as unknown as { startedBy: string[] }).startedBy,
    }));
    const bundle = (pathname: string) => pathname.replace(/-[0-9a-f]{20}\.js$/, "");
    const bundles = ran
      .filter((pathname) => /^\/(webpack-runtime|framework|app)-/.test(pathname))
      .map(bundle);
    expect(bundles).toEqual(["/webpack-runtime", "/framework", "/app"]);
    // React DOM's start in React's file (build/react-first.ts), Gatsby's in its own.
    expect(startedBy.map(bundle)).toEqual(["/framework", "/app"]);
  });

  it("ask Chromium to compile React and Gatsby's runtime while they download, and only those", async () => {
    const { page } = await site.visit("/");
    const bundles = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((entry) => new URL(entry.name).pathname),
    );
    const hinted: string[] = [];
    for (const pathname of bundles.filter((name) => GATSBY_BUNDLE.test(name))) {
      const text = await (await fetch(`${site.url}${pathname}`)).text();
      if (text.startsWith(COMPILE_HINT)) hinted.push(pathname.replace(/-[0-9a-f]{20}\.js$/, ""));
    }
    expect(hinted.sort()).toEqual(["/app", "/framework"]);
  });

  it("an interaction while the hero picture is still loading does not fetch them before it has loaded", async () => {
    const context = await site.browser.newContext();
    const release = await holdRequests(context, /\/hero\.(avif|webp|jpg)$/);
    const page = await context.newPage();
    await page.goto(`${site.url}/`, { waitUntil: "domcontentloaded" });
    expect(await page.evaluate(() => document.readyState)).not.toBe("complete");
    await page.mouse.move(5, 5);
    await page.mouse.wheel(0, 200);
    release();
    await untilHydrated(page);
    const { loadEnd, bundleStarts } = await bundleTimes(page);
    await context.close();
    expect(bundleStarts.length).toBeGreaterThanOrEqual(3);
    expect(bundleStarts.filter((startTime) => startTime < loadEnd)).toEqual([]);
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
    await cardInView(page);
    expect(await page.getByRole("dialog").count()).toBe(0);
    // Later clicks are plain links.
    await page.getByRole("link", { name: SPEC.listenNow }).click();
    expect(await page.getByRole("link", { name: SPEC.listenNow }).getAttribute("aria-busy")).toBeNull();
  });
});
