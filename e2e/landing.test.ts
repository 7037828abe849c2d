import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { VIEWPORTS } from "../test/support/browser";
import { readOnce } from "../test/support/first-visit";
import { content, SPEC, videoChannelUrl } from "../test/support/texts";
import { expectInOrder, gone, isFocused, textOf, visible } from "../test/support/expect";
import { describeInBrowser, useSite } from "../test/support/site";
import { eventually } from "../test/support/eventually";
import { TEST_SITE_DIR } from "../test/support/stack";

describeInBrowser("the landing page in Chromium", () => {
  const site = useSite();
  const { brand, landing, story, channels, coreValues, newsletter } = content;

  it("shows every section's texts in order", async () => {
    const { page } = await site.visit("/");

    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(brand.hero.title);
    const sectionTitles = await page.getByRole("heading", { level: 2 }).allTextContents();
    expect(sectionTitles).toEqual([...SPEC.sectionTitles, newsletter.inline.title, landing.closing.title]);
    const valueTitles = await page
      .getByRole("region", { name: "Core Values" })
      .getByRole("heading", { level: 3 })
      .allTextContents();
    expect(valueTitles).toEqual(SPEC.coreValues);

    expectInOrder(await textOf(page.getByRole("main")), [
      brand.hero.eyebrow,
      brand.hero.title,
      SPEC.tagline,
      brand.hero.intro,
      brand.author.credit,
      SPEC.joinTheMovement,
      landing.episodeOne.title,
      landing.episodeOne.text,
      landing.episodeOne.buttonLabel,
      story.why.title,
      ...story.why.paragraphs,
      channels.title,
      channels.intro,
      ...channels.items.flatMap((channel) => [
        channel.platform,
        channel.name,
        channel.description,
        channel.linkLabel,
      ]),
      coreValues.title,
      coreValues.intro,
      ...coreValues.items.flatMap((value) => [value.title, value.description]),
      story.biography.title,
      ...story.biography.paragraphs,
      newsletter.inline.title,
      newsletter.inline.text,
      SPEC.joinNow,
      landing.closing.title,
      landing.closing.text,
      landing.closing.videoLabel,
      landing.closing.podcastLabel,
      landing.closing.photoLabel,
      SPEC.signUp,
      SPEC.watchNow,
      SPEC.listenNow,
    ]);
    expectInOrder(await textOf(page.getByRole("contentinfo")), [
      brand.name,
      SPEC.tagline,
      landing.footer.note,
    ]);
  });

  it.each([
    // The picture is the page's width less its 20 px sides: 350 px, drawn by 700 or 1050 pixels.
    ["a phone", { width: 390, height: 844 }, 2, "720w"],
    ["a phone at 3x", { width: 390, height: 844 }, 3, "1080w"],
    ["a laptop", { width: 1280, height: 800 }, 1, "720w"],
  ])(
    "shows the hero picture on %s without any script, in AVIF at a width that fits",
    async (_device, viewport, deviceScaleFactor, width) => {
      const context = await site.browser.newContext({
        viewport,
        deviceScaleFactor,
        javaScriptEnabled: false,
      });
      try {
        const page = await context.newPage();
        await page.goto(`${site.url}/`);
        const picture = page.getByRole("img", { name: content.brand.hero.imageAlt });
        await picture.evaluate((img: HTMLImageElement) => img.decode());
        const shown = await picture.evaluate((img: HTMLImageElement) => ({
          src: img.currentSrc,
          loaded: img.complete && img.naturalWidth > 0,
          opacity: getComputedStyle(img).opacity,
          srcset: img.parentElement?.querySelector("source[type='image/avif']")?.getAttribute("srcset") ?? "",
        }));
        expect(shown.loaded).toBe(true);
        expect(shown.opacity).toBe("1");
        expect(shown.src).toMatch(/\.avif$/);
        // The file the browser chose is the srcset entry of the expected width.
        const chosen = shown.srcset.split(",").find((entry) => entry.trim().endsWith(` ${width}`));
        expect(new URL(shown.src).pathname).toBe(chosen?.trim().split(" ")[0]);
      } finally {
        await context.close();
      }
    },
  );

  it("ships the Content-Security-Policy it runs under to static hosts, in public/_headers", async () => {
    const served = (await fetch(`${site.url}/`)).headers.get("content-security-policy");
    const file = readFileSync(path.join(TEST_SITE_DIR, "_headers"), "utf8");
    expect(served).toBeTruthy();
    expect(file).toContain(`/*\n  Content-Security-Policy: ${served}\n`);
  });

  it("tells browsers on the static host to keep to HTTPS", () => {
    const file = readFileSync(path.join(TEST_SITE_DIR, "_headers"), "utf8");
    expect(file).toMatch(/^\/\*\n(?: {2}.+\n)* {2}Strict-Transport-Security: max-age=31536000\n/m);
  });

  it("publishes no build internals: no source maps, no webpack stats", async () => {
    const html = await (await fetch(`${site.url}/`)).text();
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      const code = await (await fetch(`${site.url}${script}`)).text();
      expect(code).not.toMatch(/sourceMappingURL/);
      expect((await fetch(`${site.url}${script}.map`)).status).toBe(404);
    }
    expect((await fetch(`${site.url}/webpack.stats.json`)).status).toBe(404);
    const published = readdirSync(TEST_SITE_DIR, { recursive: true }).map(String);
    expect(published.filter((name) => name.endsWith(".map") || name.endsWith("webpack.stats.json"))).toEqual(
      [],
    );
  });

  it("loads and scrolls to the end without a console error or a failed request", async () => {
    const context = await site.browser.newContext({ viewport: VIEWPORTS.mobile });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console: ${message.text()}`);
      });
      page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
      page.on("response", (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });
      page.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));
      await readOnce(page, `${site.url}/`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("fetches the hero picture first, at high priority, and uses the very file it preloads", async () => {
    const context = await site.browser.newContext({ viewport: VIEWPORTS.mobile });
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      const requests: Array<{ type: string; priority: string; url: string }> = [];
      cdp.on("Network.requestWillBeSent", (event) =>
        requests.push({
          type: event.type ?? "",
          priority: event.request.initialPriority,
          url: event.request.url,
        }),
      );
      const logged: string[] = [];
      cdp.on("Log.entryAdded", ({ entry }) => logged.push(`${entry.level}: ${entry.text}`));
      await cdp.send("Network.enable");
      await cdp.send("Log.enable");
      await page.goto(`${site.url}/`, { waitUntil: "load" });
      // Chromium reports a preload nothing used a few seconds after load.
      await page.waitForTimeout(4_000);

      const first = requests.find(
        (request) => ["Image", "Font"].includes(request.type) && !request.url.startsWith("data:"),
      );
      expect(first).toMatchObject({
        type: "Image",
        priority: "High",
        url: expect.stringMatching(/\/hero\.avif$/),
      });
      const shown = await page
        .locator("main picture img")
        .evaluate((img: HTMLImageElement) => img.currentSrc);
      expect(shown).toBe(first?.url);
      expect(requests.filter((request) => /\/hero\.\w+$/.test(request.url))).toHaveLength(1);
      expect(logged.filter((text) => /preload/i.test(text))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("draws its headings in the display face from its small file; an Effect whose title has a rarer sign also preloads the rest of Latin", async () => {
    // What the display face's files did for a page: the font files it fetched, and which of
    // Anton's faces loaded, each with its font-display.
    const fontsOf = async (path: string) => {
      const fetched: string[] = [];
      const { page } = await site.visit(path, VIEWPORTS.mobile, {
        prepare: async (context) =>
          context.on("request", (request) => {
            if (request.resourceType() === "font") fetched.push(new URL(request.url()).pathname);
          }),
      });
      const loaded = await page.evaluate(async () => {
        await document.fonts.ready;
        return [...document.fonts]
          .filter((face) => face.family.replace(/"/g, "") === "Anton" && face.status === "loaded")
          .map(
            (face) =>
              `${/^U\+0*20-0*7E\b/i.test(face.unicodeRange) ? "basic" : "rest of Latin"}, ${face.display}`,
          );
      });
      const preloaded = await page
        .locator('link[rel="preload"][as="font"]')
        .evaluateAll((links) => links.map((link) => new URL((link as HTMLLinkElement).href).pathname));
      return { fetched, loaded, preloaded };
    };
    const basicFile = expect.stringMatching(/\/anton-basic-400-normal-\w+\.woff2$/);

    const basicOnly = { fetched: [basicFile], loaded: ["basic, optional"], preloaded: [basicFile] };
    expect(await fontsOf("/")).toEqual(basicOnly);
    // The fixture Effects of October 5 and 6 are titled "... at the café" and "... for €5".
    expect(await fontsOf("/effects/2026-10-05/")).toEqual(basicOnly);
    const euro = await fontsOf("/effects/2026-10-06/");
    const latinFile = expect.stringMatching(/\/anton-latin-400-normal-\w+\.woff2$/);
    // Each file fetched once: the preloads are the requests the page's CSS uses.
    expect(euro.fetched.sort()).toEqual([basicFile, latinFile]);
    expect(euro.preloaded.sort()).toEqual([basicFile, latinFile]);
    // The page declares the Latin face again as optional (the first frame waits for it, as for the
    // small file); global.css's swapping face, checked after it, loads the same file.
    expect(euro.loaded).toContain("basic, optional");
    expect(euro.loaded).toContain("rest of Latin, optional");
  });

  it("draws a rarer sign no preload announced in the display face once its file arrives, however late", async () => {
    // October 7's text has a heading "Worth more than €5"; its title has no rare sign, so nothing
    // preloads the rest of Latin. On a slow network that file comes long after the first frame.
    let held = 0;
    const { page, context } = await site.visit("/effects/2026-10-07/", VIEWPORTS.mobile, {
      prepare: (context) =>
        context.route(/\/anton-latin-400-normal-\w+\.woff2$/, async (route) => {
          held++;
          await new Promise((resolve) => setTimeout(resolve, 600));
          await route.continue();
        }),
    });
    await page.getByRole("heading", { name: "Worth more than €5" }).waitFor();
    await page.evaluate(() => document.fonts.ready);
    expect(held).toBe(1);
    expect(await page.locator(".effect-body h2").allTextContents()).toEqual(["Worth more than €5"]);
    // The fonts Chromium drew the heading's glyphs with (DevTools' "Rendered fonts").
    const cdp = await context.newCDPSession(page);
    await cdp.send("DOM.enable");
    await cdp.send("CSS.enable");
    const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
    const { nodeId } = await cdp.send("DOM.querySelector", {
      nodeId: root.nodeId,
      selector: ".effect-body h2",
    });
    // The glyphs each face drew. The € is the rest of Latin's, which swaps in whenever it comes;
    // the letters are the small file's, `optional`: on a machine so busy that the small file missed
    // its first-frame window they stay in the fallback for this view (global.css), and the € alone
    // is Anton. Either way the € is drawn in Anton: Anton draws everything, or exactly that sign.
    const renderedFonts = async () => {
      const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
      return fonts.map(({ familyName, isCustomFont, glyphCount }) => ({
        familyName,
        isCustomFont,
        glyphCount,
      }));
    };
    const euroInAnton = (fonts: Awaited<ReturnType<typeof renderedFonts>>) => {
      const anton = fonts.find((font) => font.familyName === "Anton" && font.isCustomFont);
      return anton !== undefined && (fonts.length === 1 || anton.glyphCount === 1);
    };
    // The swap is drawn at the next frame after the file arrives, which may follow fonts.ready.
    const drawn = await eventually(renderedFonts, { what: "the € drawn in Anton", until: euroInAnton }).catch(
      () => renderedFonts(),
    );
    expect({ drawn, euroInAnton: euroInAnton(drawn) }).toEqual({ drawn, euroInAnton: true });
  });

  describe.each([SPEC.joinTheMovement, SPEC.signUp, SPEC.listenNow])("the %s button", (label) => {
    it("opens the signup dialog; Escape, the close button and a click outside close it and focus returns", async () => {
      const { page } = await site.visit("/");
      const trigger = page.getByRole("button", { name: label, exact: true });
      const dialog = page.getByRole("dialog", { name: SPEC.joinTheMovement });
      const closers: Array<[string, () => Promise<void>]> = [
        ["Escape", () => page.keyboard.press("Escape")],
        [
          "the close button",
          () => dialog.getByRole("button", { name: newsletter.dialog.closeLabel }).click(),
        ],
        // The top-left corner is backdrop at both widths: the panel sits at the bottom or centre.
        ["a click outside", () => page.mouse.click(8, 8)],
      ];
      for (const [how, close] of closers) {
        await trigger.click();
        await visible(dialog);
        expect(await textOf(dialog)).toContain(SPEC.dialogText);
        expect(await isFocused(dialog.getByRole("textbox", { name: newsletter.dialog.emailLabel }))).toBe(
          true,
        );
        await close();
        await gone(dialog).catch(() => {
          throw new Error(`${how} did not close the dialog`);
        });
        if (!(await isFocused(trigger))) throw new Error(`focus did not return to "${label}" after ${how}`);
      }
    });
  });

  it("opens every external link in a new tab that cannot reach back to this page", async () => {
    const { page, context } = await site.visit("/");
    const links = page.locator(`a[href^="http"]:not([href^="${site.url}"])`);
    const count = await links.count();
    // Four channel cards, episode one, and four in the closing section.
    expect(count).toBe(9);
    for (let index = 0; index < count; index += 1) {
      const link = links.nth(index);
      const href = await link.getAttribute("href");
      expect(await link.getAttribute("target")).toBe("_blank");
      expect((await link.getAttribute("rel"))?.split(/\s+/)).toContain("noopener");
      const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
      await tab.waitForLoadState("domcontentloaded");
      expect(tab.url()).toBe(href);
      expect(await tab.evaluate(() => window.opener)).toBeNull();
      await tab.close();
    }
    expect(await page.evaluate(() => window.location.pathname)).toBe("/");
  });

  it.each([landing.episodeOne.buttonLabel, SPEC.followSubscribe, SPEC.watchNow])(
    "opens the video channel from %s",
    async (label) => {
      const { page, context } = await site.visit("/");
      const [tab] = await Promise.all([
        context.waitForEvent("page"),
        page.getByRole("link", { name: label, exact: true }).click(),
      ]);
      await tab.waitForLoadState("domcontentloaded");
      expect(tab.url()).toBe(videoChannelUrl());
    },
  );
});
