import Parser from "rss-parser";
import type { Page } from "playwright-core";
import { textOf } from "../test/support/expect";
import { effectTexts, publishedFixtures, scheduledFixtures } from "../test/support/effects";
import { inlineCard, pageErrors, subscribeInline } from "../test/support/newsletter";
import { linkIn, waitForMailsTo } from "../test/support/outbox";
import { describeInBrowser, uniqueAddress, useSite } from "../test/support/site";
import { content } from "../test/support/texts";

const dateLabel = (date: string) =>
  new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "long" }).format(
    new Date(`${date}T00:00:00Z`),
  );

/** The archive's entries as a reader sees them: date, title, summary and where the title leads. */
async function archiveEntries(page: Page) {
  return page
    .getByRole("main")
    .getByRole("listitem")
    .evaluateAll((items) =>
      items.map((item) => ({
        date: item.querySelector("time")?.textContent ?? "",
        title: item.querySelector("h2")?.textContent ?? "",
        summary: item.querySelector("h2 + p")?.textContent ?? "",
        href: item.querySelector("h2 a")?.getAttribute("href") ?? "",
      })),
    );
}

const [newest] = publishedFixtures;
const oldest = publishedFixtures[publishedFixtures.length - 1];
const [scheduled] = scheduledFixtures;

describeInBrowser("the published Effects of the Day", () => {
  const site = useSite();
  const get = (path: string) => fetch(new URL(path, site.url));

  it("builds the tests' Effects: 22 published on 2026-10-22, one scheduled for the day after", () => {
    expect(publishedFixtures).toHaveLength(22);
    expect(scheduled?.date).toBe("2026-10-23");
  });

  describe("the archive", () => {
    it("lists the 20 newest Effects on its first page, each with its date, title and summary", async () => {
      const { page, response, consoleMessages } = await site.visit("/effects/");
      expect(response?.status()).toBe(200);
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(effectTexts.archive.title);
      expect(await archiveEntries(page)).toEqual(
        publishedFixtures.slice(0, 20).map((effect) => ({
          date: dateLabel(effect.date),
          title: effect.title,
          summary: effect.summary,
          href: `/effects/${effect.date}/`,
        })),
      );
      expect(await textOf(page.getByRole("main"))).not.toContain(scheduled.title);
      expect(pageErrors(consoleMessages)).toEqual([]);
    });

    it("pages to the older Effects and back", async () => {
      const { page } = await site.visit("/effects/");
      expect(await page.getByRole("link", { name: effectTexts.archive.newerLabel }).count()).toBe(0);
      await page.getByRole("link", { name: effectTexts.archive.olderLabel }).click();
      await page.waitForURL("**/effects/page/2/");
      expect(await textOf(page.getByRole("main"))).toContain("Page 2 of 2");
      expect((await archiveEntries(page)).map((entry) => entry.title)).toEqual(
        publishedFixtures.slice(20).map((effect) => effect.title),
      );
      expect(await page.getByRole("link", { name: effectTexts.archive.olderLabel }).count()).toBe(0);
      await page.getByRole("link", { name: effectTexts.archive.newerLabel }).click();
      await page.waitForURL(/\/effects\/$/);
      expect((await archiveEntries(page))[0].title).toBe(newest.title);
    });

    it("opens an Effect from its title", async () => {
      const { page } = await site.visit("/effects/");
      await page.getByRole("link", { name: publishedFixtures[3].title }).click();
      await page.waitForURL(`**/effects/${publishedFixtures[3].date}/`);
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(publishedFixtures[3].title);
    });

    it("is linked from the landing page's inline card and footer, the sections untouched", async () => {
      const { page } = await site.visit("/");
      const card = page.getByRole("region", { name: content.newsletter.inline.title });
      const cardLink = card.getByRole("link", { name: content.newsletter.inline.archiveLabel });
      expect(await cardLink.getAttribute("href")).toBe("/effects/");
      const footerLink = page
        .getByRole("contentinfo")
        .getByRole("link", { name: content.landing.footer.archiveLabel });
      expect(await footerLink.getAttribute("href")).toBe("/effects/");
      await footerLink.click();
      await page.waitForURL(/\/effects\/$/);
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(effectTexts.archive.title);
    });
  });

  describe("an Effect's page", () => {
    const middle = publishedFixtures[10];

    it("shows the Effect's date, title and body, rendered from its Markdown", async () => {
      const { page, response } = await site.visit(`/effects/${middle.date}/`);
      expect(response?.status()).toBe(200);
      const article = page.getByRole("article");
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(middle.title);
      expect(await article.locator("time").getAttribute("datetime")).toBe(middle.date);
      expect(await textOf(article)).toContain(dateLabel(middle.date));
      expect(await article.locator("em").first().textContent()).toBe("emphasis");
      expect(await article.getByRole("listitem").allTextContents()).toEqual([
        "one thing to try",
        "another thing to try",
      ]);
      expect(await article.getByRole("link", { name: "link to the archive" }).getAttribute("href")).toBe(
        "https://thepurposeeffect.example/effects/",
      );
    });

    it("leads to the day before's and the day after's Effect", async () => {
      const { page } = await site.visit(`/effects/${middle.date}/`);
      const previous = publishedFixtures[11];
      const next = publishedFixtures[9];
      const nav = page.getByRole("navigation");
      await nav.getByRole("link", { name: new RegExp(effectTexts.effect.nextLabel) }).click();
      await page.waitForURL(`**/effects/${next.date}/`);
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(next.title);
      await page.goBack();
      await page.waitForURL(`**/effects/${middle.date}/`);
      const previousLink = page.getByRole("navigation").getByRole("link", {
        name: new RegExp(effectTexts.effect.previousLabel),
      });
      expect(await textOf(previousLink)).toContain(previous.title);
      expect(await previousLink.getAttribute("href")).toBe(`/effects/${previous.date}/`);
    });

    it("has no previous link on the first Effect and no next link on the newest (the scheduled one stays hidden)", async () => {
      const first = await site.visit(`/effects/${oldest.date}/`);
      expect(
        await first.page.getByRole("link", { name: new RegExp(effectTexts.effect.previousLabel) }).count(),
      ).toBe(0);
      const last = await site.visit(`/effects/${newest.date}/`);
      expect(
        await last.page.getByRole("link", { name: new RegExp(effectTexts.effect.nextLabel) }).count(),
      ).toBe(0);
    });

    it("subscribes a reader with the same inline card as the landing page", async () => {
      const { page, functionCalls } = await site.visit(`/effects/${middle.date}/`);
      const { field } = inlineCard(page);
      expect(await field.getAttribute("placeholder")).toBe(content.newsletter.inline.placeholder);
      const address = uniqueAddress("effect-page");
      await subscribeInline(page, address);
      expect(functionCalls("send-confirmation")).toHaveLength(1);
      expect(await field.inputValue()).toBe("");
      const [mail] = await waitForMailsTo(site.stack.outbox, address);
      expect(linkIn(mail, "confirm").href.startsWith(`${site.url}/?confirm=`)).toBe(true);
    });

    it("tells search engines and social previews what it is", async () => {
      const { page } = await site.visit(`/effects/${middle.date}/`);
      const head = (selector: string, attribute = "content") =>
        page.locator(`head ${selector}`).first().getAttribute(attribute);
      expect(await page.title()).toBe(`${middle.title} | ${content.brand.name}`);
      expect(await head('meta[name="description"]')).toBe(middle.summary);
      expect(await head('link[rel="canonical"]', "href")).toBe(
        `https://thepurposeeffect.example/effects/${middle.date}/`,
      );
      expect(await head('meta[property="og:type"]')).toBe("article");
      expect(await head('meta[property="og:title"]')).toBe(`${middle.title} | ${content.brand.name}`);
      expect(await head('meta[name="twitter:description"]')).toBe(middle.summary);
      const jsonLd = JSON.parse(
        (await page.locator('script[type="application/ld+json"]').textContent()) ?? "",
      );
      expect(jsonLd).toMatchObject({
        "@type": "BlogPosting",
        headline: middle.title,
        // Midnight in New York (content/brand.yaml), daylight saving time in October.
        datePublished: `${middle.date}T04:00:00.000Z`,
        author: { "@type": "Person", name: content.brand.author.name },
        publisher: { "@type": "Organization", name: content.brand.name },
      });
    });
  });

  it("does not publish the Effect scheduled for after the build's day", async () => {
    expect((await get(`/effects/${scheduled.date}/`)).status).toBe(404);
    expect((await get(`/effects/${scheduled.date}/mail.json`)).status).toBe(404);
  });

  it("publishes the mail edition of every published Effect", async () => {
    for (const effect of publishedFixtures) {
      const response = await get(`/effects/${effect.date}/mail.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      const mail = (await response.json()) as Record<string, string> & {
        welcome: Record<string, string>;
      };
      expect(Object.keys(mail).sort()).toEqual(["date", "html", "subject", "text", "url", "welcome"]);
      expect(mail).toMatchObject({
        date: effect.date,
        subject: `${effectTexts.name}: ${effect.title}`,
        url: `https://thepurposeeffect.example/effects/${effect.date}/`,
      });
      // Its welcome variant: the newsletter's name once in the subject (content/newsletter.yaml mails.welcome).
      expect(mail.welcome.subject).toBe(`Welcome to ${effectTexts.name}: ${effect.title}`);
      expect(mail.welcome.html).toContain('href="{{unsubscribe_url}}"');
      expect(mail.html).toContain(effect.title);
      expect(mail.html).toContain('href="{{unsubscribe_url}}"');
      expect(mail.text).toContain(`The first paragraph of ${effect.title.replace("Test Effect of ", "")}`);
    }
  });

  it("serves an RSS feed a feed reader parses, the latest 20 with full HTML", async () => {
    const response = await get("/effects/rss.xml");
    expect(response.headers.get("content-type")).toContain("xml");
    const feed = await new Parser().parseString(await response.text());
    expect(feed.title).toBe(`${effectTexts.name} | ${content.brand.name}`);
    expect(feed.items.map((item) => item.title)).toEqual(publishedFixtures.slice(0, 20).map((e) => e.title));
    expect(feed.items[0].link).toBe(`https://thepurposeeffect.example/effects/${newest.date}/`);
    expect(feed.items[0]["content:encoded"]).toContain("<em>emphasis</em>");
  });

  it("serves a JSON Feed 1.1 with the same items", async () => {
    const response = await get("/effects/feed.json");
    expect(response.headers.get("content-type")).toContain("application/json");
    const feed = (await response.json()) as { version: string; items: Array<Record<string, string>> };
    expect(feed.version).toBe("https://jsonfeed.org/version/1.1");
    expect(feed.items).toHaveLength(20);
    expect(feed.items[0]).toMatchObject({
      id: `https://thepurposeeffect.example/effects/${newest.date}/`,
      title: newest.title,
      summary: newest.summary,
    });
    expect(feed.items[0].content_html).toContain("<li>one thing to try</li>");
  });

  it.each(["/", "/effects/", `/effects/${newest.date}/`, "/no-such-page/"])(
    "advertises both feeds on %s",
    async (path) => {
      const { page } = await site.visit(path);
      const alternates = await page
        .locator('head link[rel="alternate"]')
        .evaluateAll((links) => links.map((link) => [link.getAttribute("type"), link.getAttribute("href")]));
      expect(alternates).toEqual([
        ["application/rss+xml", "https://thepurposeeffect.example/effects/rss.xml"],
        ["application/feed+json", "https://thepurposeeffect.example/effects/feed.json"],
      ]);
    },
  );

  it("lists the archive and every published Effect in the sitemap", async () => {
    const sitemap = await (await get("/sitemap-0.xml")).text();
    for (const path of [
      "/effects/",
      "/effects/page/2/",
      ...publishedFixtures.map((e) => `/effects/${e.date}/`),
    ]) {
      expect(sitemap).toContain(`<loc>https://thepurposeeffect.example${path}</loc>`);
    }
    expect(sitemap).not.toContain(scheduled.date);
  });
});
