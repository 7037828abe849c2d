/**
 * The archive's search, in Chromium on the tests' build (22 published Effects, one scheduled):
 * the index the build wrote with Pagefind (build/search-index.ts), loaded only once a reader
 * uses the form, finds an Effect by a word of its body and leads to it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BrowserContext } from "playwright-core";
import { writeDevelopSearchIndex } from "../build/search-index";
import type { Brand } from "../src/content/schema";
import { markdownToHtml } from "../src/effects/markdown";
import { dayLabel } from "../supabase/functions/_shared/contract/calendar-day";
import { readContent } from "../test/support/content";
import { pagefindRecords } from "../test/support/pagefind";
import { TEST_SITE_DIR } from "../test/support/stack";
import { SEARCH_PAUSE_MS, SEARCH_WORKER } from "../src/components/effects/search-setup";
import { isFocused, textOf, visible } from "../test/support/expect";
import { effectTexts, publishedFixtures, scheduledFixtures } from "../test/support/effects";
import { pageErrors } from "../test/support/newsletter";
import { describeInBrowser, useSite } from "../test/support/site";

const texts = effectTexts.archive.search;
const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => values[name]);

/** The one published Effect whose body says "Forbearance" (e2e/fixtures/effects/2026-10-02.yaml). */
const searched = publishedFixtures.find((effect) => effect.body.includes("Forbearance"));
/** The scheduled Effect's own word: not published, so not findable (2026-10-23.yaml). */
const [scheduled] = scheduledFixtures;

/** Every request for Pagefind's files the context makes, from before the page is opened. */
const searchRequests = (context: BrowserContext): string[] => {
  const paths: string[] = [];
  context.on("request", (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith("/pagefind/")) paths.push(pathname);
  });
  return paths;
};

describeInBrowser("searching the Effects from the archive", () => {
  const site = useSite();

  it("has one fixture Effect to find, on the archive's second page, and one scheduled", () => {
    expect(searched).toBeDefined();
    expect(publishedFixtures.slice(0, 20)).not.toContain(searched);
    expect(scheduled.body).toContain("Equanimity");
  });

  it("loads nothing of the search until the reader uses it, then finds an Effect by a word of its body", async () => {
    let requested: string[] = [];
    const { page, consoleMessages } = await site.visit("/effects/", undefined, {
      prepare: async (context) => (requested = searchRequests(context)),
    });
    const field = page.getByRole("searchbox", { name: texts.label });
    await visible(field);
    // Idle on the page: nothing of Pagefind has come.
    await page.waitForTimeout(500);
    expect(requested).toEqual([]);
    expect(page.workers()).toEqual([]);

    await field.focus();
    await field.pressSequentially("forbear");
    const status = page.getByRole("status").filter({ hasText: "forbear" });
    await visible(status);
    expect(await textOf(status)).toBe(fill(texts.oneResultText, { query: "forbear" }));
    expect(await status.getAttribute("aria-live")).toBe("polite");
    expect(requested).toContain("/pagefind/pagefind.js");
    // The search runs in a worker of its own, started by the reader's focus (src/components/effects/search-worker.ts).
    expect(page.workers().map((worker) => new URL(worker.url()).pathname)).toEqual([SEARCH_WORKER]);

    // The results: a list named by what the status says, each Effect's date, title and words found.
    const results = page.getByRole("list", { name: fill(texts.oneResultText, { query: "forbear" }) });
    const result = results.getByRole("link", { name: searched!.title, exact: true });
    await visible(result);
    expect(await result.getAttribute("href")).toBe(`/effects/${searched!.date}/`);
    const item = results.getByRole("listitem");
    expect(await textOf(item)).toContain("October 2, 2026");
    expect(await textOf(item.locator("mark"))).toBe("Forbearance");
    await result.click();
    await page.waitForURL(`**/effects/${searched!.date}/`);
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(searched!.title);
    expect(pageErrors(consoleMessages)).toEqual([]);
  });

  it("says in words that nothing matched, and finds no Effect before its day", async () => {
    const { page, consoleMessages } = await site.visit("/effects/");
    const field = page.getByRole("searchbox", { name: texts.label });
    for (const query of ["zqxwvj", "equanimity"]) {
      await field.fill(query);
      await field.press("Enter");
      const status = page.getByRole("status");
      await visible(status.filter({ hasText: query }));
      expect(await textOf(status)).toBe(fill(texts.noResultsText, { query }));
      expect(await page.getByRole("link", { name: scheduled.title }).count()).toBe(0);
    }
    expect(pageErrors(consoleMessages)).toEqual([]);
  });

  it("is used with the keyboard alone: type, Enter, Tab to the result, Enter opens it", async () => {
    const { page } = await site.visit("/effects/");
    const field = page.getByRole("searchbox", { name: texts.label });
    await field.focus();
    await page.keyboard.type("forbearance");
    await page.keyboard.press("Enter");
    const results = page.getByRole("list", { name: fill(texts.oneResultText, { query: "forbearance" }) });
    const result = results.getByRole("link", { name: searched!.title, exact: true });
    await visible(result);
    // From the field: the button, then the first result.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await isFocused(result)).toBe(true);
    await page.keyboard.press("Enter");
    await page.waitForURL(`**/effects/${searched!.date}/`);
  });

  it("says the search could not load when its files fail, and searches once they come back", async () => {
    let failing = true;
    const { page, consoleMessages } = await site.visit("/effects/", undefined, {
      prepare: (context) =>
        context.route("**/pagefind/pagefind.js", (route) =>
          failing ? route.fulfill({ status: 503, body: "down" }) : route.continue(),
        ),
    });
    const field = page.getByRole("searchbox", { name: texts.label });
    await field.fill("forbear");
    await field.press("Enter");
    const status = page.getByRole("status");
    await visible(status.filter({ hasText: texts.errorText }));
    // The archive's own list is still there to browse.
    expect(await page.getByRole("link", { name: publishedFixtures[0].title, exact: true }).count()).toBe(1);

    failing = false;
    await field.press("Enter");
    await visible(status.filter({ hasText: fill(texts.oneResultText, { query: "forbear" }) }));
    expect(pageErrors(consoleMessages).filter((text) => !text.includes("pagefind.js"))).toEqual([]);
  });

  it("searches a pasted word at once, without the pause kept for typing, and Enter right after it shows that search", async () => {
    const { page, consoleMessages } = await site.visit("/effects/");
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    const field = page.getByRole("searchbox", { name: texts.label });
    const status = page.getByRole("status");
    // A first search, typed: the search is in and warm before the paste.
    await field.focus();
    await page.keyboard.type("forbear");
    await visible(status.filter({ hasText: "forbear" }));

    // From the last change to the field (the paste, or the last typed key) to when the status first
    // named the word.
    const answeredAfter = async (word: string, how: "paste" | "paste, Enter" | "type") => {
      if (how !== "type") await page.evaluate((text) => navigator.clipboard.writeText(text), word);
      await page.evaluate((text) => {
        const times = { changed: 0, pasted: false, answered: 0 };
        (window as unknown as { pasteTimes: typeof times }).pasteTimes = times;
        const field = document.querySelector<HTMLInputElement>('input[type="search"]')!;
        field.addEventListener("input", (event) => {
          times.changed = performance.now();
          times.pasted ||= (event as InputEvent).inputType === "insertFromPaste";
        });
        const status = document.querySelector('[role="status"]')!;
        new MutationObserver(() => {
          if (!times.answered && status.textContent?.includes(text)) times.answered = performance.now();
        }).observe(status, { subtree: true, childList: true, characterData: true });
      }, word);
      await page.keyboard.press("ControlOrMeta+A");
      if (how === "type") await page.keyboard.type(word);
      else await page.keyboard.press("ControlOrMeta+V");
      if (how === "paste, Enter") await page.keyboard.press("Enter");
      await visible(status.filter({ hasText: word }));
      const times = await page.evaluate(
        () =>
          (window as unknown as { pasteTimes: { changed: number; pasted: boolean; answered: number } })
            .pasteTimes,
      );
      expect(times.pasted).toBe(how !== "type");
      return times.answered - times.changed;
    };

    // Pasted, no Enter: answered without the pause a typed word waits for (SEARCH_PAUSE_MS after its
    // last key). Measured against typed words in the same page, interleaved, so a busy machine
    // slows both: the pasted word's answer comes at least half the pause sooner.
    const pasted: number[] = [];
    const typed: number[] = [];
    // The status always names the word before, so each answer is a change to it.
    for (let round = 0; round < 3; round++) {
      typed.push(await answeredAfter("paragraph", "type"));
      pasted.push(await answeredAfter("forbear", "paste"));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1];
    expect({ pasted, typed, sooner: median(pasted) + SEARCH_PAUSE_MS / 2 < median(typed) }).toEqual({
      pasted,
      typed,
      sooner: true,
    });
    await answeredAfter("paragraph", "paste");
    expect(await textOf(status)).toBe(
      fill(texts.resultsText, { count: String(publishedFixtures.length), query: "paragraph" }),
    );
    expect(
      await page
        .getByRole("list", { name: await textOf(status) })
        .getByRole("listitem")
        .count(),
    ).toBe(10);

    // Pasted, then Enter at once: the one answer, the same as without Enter.
    await answeredAfter("Forbearance", "paste, Enter");
    expect(await textOf(status)).toBe(fill(texts.oneResultText, { query: "Forbearance" }));
    const results = page.getByRole("list", { name: await textOf(status) });
    await visible(results.getByRole("link", { name: searched!.title, exact: true }));
    expect(await results.getByRole("listitem").count()).toBe(1);
    expect(pageErrors(consoleMessages)).toEqual([]);
  });

  it("shows every matching Effect, more on request, for a word they all share", async () => {
    const { page } = await site.visit("/effects/");
    await page.getByRole("searchbox", { name: texts.label }).fill("paragraph");
    const status = page.getByRole("status");
    await visible(status.filter({ hasText: "paragraph" }));
    expect(await textOf(status)).toBe(
      fill(texts.resultsText, { count: String(publishedFixtures.length), query: "paragraph" }),
    );
    const results = page.getByRole("list", { name: await textOf(status) }).getByRole("listitem");
    expect(await results.count()).toBe(10);
    await page.getByRole("button", { name: texts.moreLabel }).click();
    await visible(results.nth(19));
    // The keyboard goes on where the new results start, also when the button is gone.
    expect(await isFocused(results.nth(10).getByRole("link"))).toBe(true);
    await page.getByRole("button", { name: texts.moreLabel }).press("Enter");
    await visible(results.nth(21));
    expect(await isFocused(results.nth(20).getByRole("link"))).toBe(true);
    expect(await results.count()).toBe(22);
    expect(await page.getByRole("button", { name: texts.moreLabel }).count()).toBe(0);
  });

  // `npm run cms` runs Gatsby's development server, which writes no pages: its index is made from
  // the Effects' fields (build/search-index.ts). Each Effect's record must be the one its built
  // page gives, or the editor's preview would find other words than the site.
  it("indexes under `npm run cms` what it indexes from the built pages", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "develop-search-"));
    try {
      const { siteUrl } = readContent<Brand>("brand");
      const effects = publishedFixtures.map((effect) => ({
        date: effect.date,
        dateLabel: dayLabel(effect.date),
        title: effect.title,
        html: markdownToHtml(effect.body, siteUrl),
      }));
      const publicDir = path.join(dir, "public");
      expect(await writeDevelopSearchIndex(publicDir, path.join(dir, "pages"), effects)).toBe(effects.length);
      expect(existsSync(path.join(publicDir, SEARCH_WORKER))).toBe(true);
      const developed = pagefindRecords(publicDir);
      expect(developed.length).toBe(effects.length);
      // Whole records: address, words, title, day, and the title's anchor.
      expect(developed).toEqual(pagefindRecords(TEST_SITE_DIR));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is not there without JavaScript: the archive is its plain list", async () => {
    const { page } = await site.visit("/effects/", undefined, { javaScript: false });
    expect(await page.getByRole("search").count()).toBe(0);
    expect(await page.getByRole("searchbox").count()).toBe(0);
    expect(await page.getByRole("main").getByRole("listitem").count()).toBe(20);
  });
});
