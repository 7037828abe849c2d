import Parser from "rss-parser";
import { startOfDay } from "../../../supabase/functions/_shared/contract/calendar-day";
import type { Effect } from "../effects";
import { FEED_SIZE, jsonFeed, rssFeed } from "../feeds";
import { UNSUBSCRIBE_PLACEHOLDER } from "../../../supabase/functions/_shared/contract/published";
import { mailEdition } from "../mail";
import { markdownToHtml, markdownToText } from "../markdown";
import { effectOfFile, effectResolvers } from "../effect-nodes";
import { ARCHIVE_PAGE_SIZE, archivePage, archivePages, effectPages } from "../publication";

const SITE = "https://site.example";
const BODY = `Readiness *follows* action, and **habits** stick.

Try this:

- the call you keep postponing
- the [first page](/effects/2026-11-20/) of the plan

1. one
2. two

Write to <hello@site.example> or see [the show](https://show.example/ep1).`;

const effect = (date: string, title = `Effect of ${date}`): Effect => ({
  date,
  file: `content/effects/${date}.yaml`,
  title,
  summary: `Summary of ${date}.`,
  body: BODY,
});

describe("the Markdown of an Effect", () => {
  it("renders paragraphs, emphasis, lists and links, with the site's own links made absolute", () => {
    const html = markdownToHtml(BODY, SITE);
    expect(html).toContain("<p>Readiness <em>follows</em> action, and <strong>habits</strong> stick.</p>");
    expect(html).toContain(
      '<li>the <a href="https://site.example/effects/2026-11-20/">first page</a> of the plan</li>',
    );
    expect(html).toContain("<ol>\n<li>one</li>");
    expect(html).toContain('<a href="mailto:hello@site.example">hello@site.example</a>');
  });

  it("escapes anything that looks like HTML instead of passing it through", () => {
    expect(markdownToHtml("Hi <script>alert(1)</script>", SITE)).toBe(
      "<p>Hi &lt;script&gt;alert(1)&lt;/script&gt;</p>\n",
    );
  });

  it("reads well as plain text: no markup, lists marked, each link followed by its address", () => {
    expect(markdownToText(BODY, SITE)).toBe(
      [
        "Readiness follows action, and habits stick.",
        "",
        "Try this:",
        "",
        "- the call you keep postponing",
        "- the first page (https://site.example/effects/2026-11-20/) of the plan",
        "",
        "1. one",
        "2. two",
        "",
        "Write to hello@site.example or see the show (https://show.example/ep1).",
      ].join("\n"),
    );
  });
});

describe("the mail edition", () => {
  const texts = {
    name: "Effect of the Day",
    mail: {
      readOnlineLabel: "Read it on the web",
      shareText: "Know someone who needs this today? Forward this e-mail, or share {link}.",
      shareLinkLabel: "the Effect's page",
      reasonText: "You subscribed.",
      unsubscribeLabel: "Unsubscribe",
      privacyLabel: "Your data and privacy",
    },
  };
  const mail = mailEdition(effect("2026-11-21", "Show up & start"), {
    siteUrl: SITE,
    brandName: "The Purpose Effect",
    texts,
  });

  it("has the date, the subject, the page's address and both parts", () => {
    expect(mail.date).toBe("2026-11-21");
    expect(mail.subject).toBe("Effect of the Day: Show up & start");
    expect(mail.url).toBe("https://site.example/effects/2026-11-21/");
    expect(Object.keys(mail).sort()).toEqual(["date", "html", "subject", "text", "url"]);
  });

  it("is HTML a mail client renders: tables and inline styles; the one stylesheet only for dark mode", () => {
    expect(mail.html).toMatch(/^<!DOCTYPE html>/);
    expect(mail.html).toContain('role="presentation"');
    expect(mail.html).not.toMatch(/<link|<script|javascript:/i);
    // A client that drops <style> loses dark mode only: the light layout is all inline.
    const styles = mail.html.match(/<style>[\s\S]*?<\/style>/g) ?? [];
    expect(styles).toHaveLength(1);
    expect((styles[0] ?? "").replace(/:root \{[^}]*\}/, "")).toMatch(
      /^<style>\s*@media \(prefers-color-scheme: dark\) \{/,
    );
    // Every paragraph, list and link of the body carries its own style.
    for (const tag of mail.html.match(/<(p|ul|ol|li|a)\b[^>]*>/g) ?? []) expect(tag).toContain('style="');
    expect(mail.html).toContain("<title>Effect of the Day: Show up &amp; start</title>");
    expect(mail.html).toContain('href="https://site.example/effects/2026-11-20/"');
  });

  it("says after the button how to share it, with a link to the Effect's page in both parts", () => {
    const button = mail.html.indexOf(">Read it on the web</a>");
    const share = mail.html.indexOf("Know someone who needs this today? Forward this e-mail, or share <a");
    expect(button).toBeGreaterThan(0);
    expect(share).toBeGreaterThan(button);
    expect(mail.html.slice(share)).toMatch(
      /^[^<]*<a class="pe-muted" href="https:\/\/site\.example\/effects\/2026-11-21\/"[^>]*>the Effect's page<\/a>\./,
    );
    expect(mail.text).toContain(
      "Read it on the web: https://site.example/effects/2026-11-21/\n\n" +
        "Know someone who needs this today? Forward this e-mail, or share the Effect's page " +
        "(https://site.example/effects/2026-11-21/).",
    );
  });

  it("leaves the unsubscribe link for the sender to fill in, in both parts", () => {
    expect(UNSUBSCRIBE_PLACEHOLDER).toBe("{{unsubscribe_url}}");
    expect(mail.html).toContain('href="{{unsubscribe_url}}"');
    expect(mail.text).toContain("Unsubscribe: {{unsubscribe_url}}");
  });

  it("has a text part that carries the whole Effect on its own", () => {
    expect(mail.text).toContain("EFFECT OF THE DAY · NOVEMBER 21, 2026\n\nShow up & start\n===============");
    expect(mail.text).toContain(markdownToText(BODY, SITE));
    expect(mail.text).toContain("Read it on the web: https://site.example/effects/2026-11-21/");
    expect(mail.text).not.toMatch(/[<>*]|\]\(/);
  });
});

describe("the pages", () => {
  const days = Array.from({ length: 45 }, (_, index) => {
    const day = new Date(Date.UTC(2026, 0, 1 + index));
    return day.toISOString().slice(0, 10);
  });
  const published = days.map((day) => effect(day)).reverse();
  const today = "2026-02-14";

  it("lists 20 Effects a page, newest first, with links to newer and older pages", () => {
    const pages = archivePages(published.length, today);
    expect(pages.map((page) => page.path)).toEqual(["/effects/", "/effects/page/2/", "/effects/page/3/"]);
    // Each page's query takes its 20 from the published Effects, newest first (the template's query).
    expect(pages.map(({ context }) => [context.skip, context.limit, context.publishedUpTo])).toEqual([
      [0, ARCHIVE_PAGE_SIZE, today],
      [ARCHIVE_PAGE_SIZE, ARCHIVE_PAGE_SIZE, today],
      [2 * ARCHIVE_PAGE_SIZE, ARCHIVE_PAGE_SIZE, today],
    ]);
    expect(archivePage(pages[1].context, [])).toMatchObject({
      newerPath: "/effects/",
      olderPath: "/effects/page/3/",
      pageCount: 3,
    });
    expect(archivePage(pages[2].context, []).olderPath).toBeNull();
  });

  it("still has an archive page before the first Effect is published", () => {
    const pages = archivePages(0, today);
    expect(pages).toEqual([
      {
        path: "/effects/",
        context: { page: 1, pageCount: 1, limit: ARCHIVE_PAGE_SIZE, skip: 0, publishedUpTo: today },
      },
    ]);
    expect(archivePage(pages[0].context, [])).toEqual({
      page: 1,
      pageCount: 1,
      entries: [],
      newerPath: null,
      olderPath: null,
    });
  });

  it("gives each published Effect a page whose queries stop at the publication day", () => {
    expect(effectPages(published.slice(0, 2), today)).toEqual([
      { path: "/effects/2026-02-14/", context: { date: "2026-02-14", publishedUpTo: today } },
      { path: "/effects/2026-02-13/", context: { date: "2026-02-13", publishedUpTo: today } },
    ]);
  });

  it("shows the body as the feeds carry it, published at the start of its day in the brand's zone", async () => {
    const context = {
      nodeModel: { findOne: async () => ({ siteUrl: SITE, timeZone: "America/New_York" }) },
    };
    const { html, publishedAt } = effectResolvers.Effect;
    expect(await html.resolve(published[0], {}, context)).toBe(markdownToHtml(BODY, SITE));
    expect(await publishedAt.resolve(published[0], {}, context)).toBe("2026-02-14T05:00:00.000Z");
  });

  it("makes an Effect of a good file, with its page and its day's label", () => {
    const { effect: made, problems } = effectOfFile(
      { name: "2026-11-21.yaml", text: `title: T\nsummary: S\nbody: B\n` },
      "content/effects",
    );
    expect(problems).toEqual([]);
    expect(made).toEqual({
      date: "2026-11-21",
      file: "content/effects/2026-11-21.yaml",
      path: "/effects/2026-11-21/",
      dateLabel: "November 21, 2026",
      title: "T",
      summary: "S",
      body: "B",
    });
  });
});

describe("the feeds", () => {
  const published = Array.from({ length: 25 }, (_, index) =>
    effect(`2026-10-${String(31 - index).padStart(2, "0")}`),
  );
  const source = {
    published,
    siteUrl: SITE,
    timeZone: "America/New_York",
    brandName: "The Purpose Effect",
    authorName: "The Host",
    name: "Effect of the Day",
    description: "One reminder a day.",
  };

  it("writes RSS 2.0 that a feed reader parses: the latest 20, with their full HTML", async () => {
    const feed = await new Parser().parseString(rssFeed(source));
    expect(feed.title).toBe("Effect of the Day | The Purpose Effect");
    expect(feed.link).toBe("https://site.example/effects/");
    expect(feed.items).toHaveLength(FEED_SIZE);
    const [latest] = feed.items;
    expect(latest).toMatchObject({
      title: "Effect of 2026-10-31",
      link: "https://site.example/effects/2026-10-31/",
      guid: "https://site.example/effects/2026-10-31/",
      isoDate: "2026-10-31T04:00:00.000Z",
    });
    expect(latest["content:encoded"]).toBe(markdownToHtml(BODY, SITE));
    expect(feed.items[FEED_SIZE - 1].title).toBe("Effect of 2026-10-12");
  });

  it("writes JSON Feed 1.1 with the same items", () => {
    const feed = JSON.parse(jsonFeed(source));
    expect(feed).toMatchObject({
      version: "https://jsonfeed.org/version/1.1",
      title: "Effect of the Day | The Purpose Effect",
      home_page_url: "https://site.example/effects/",
      feed_url: "https://site.example/effects/feed.json",
      authors: [{ name: "The Host" }],
    });
    expect(feed.items).toHaveLength(FEED_SIZE);
    expect(feed.items[0]).toEqual({
      id: "https://site.example/effects/2026-10-31/",
      url: "https://site.example/effects/2026-10-31/",
      title: "Effect of 2026-10-31",
      summary: "Summary of 2026-10-31.",
      content_html: markdownToHtml(BODY, SITE),
      date_published: "2026-10-31T04:00:00.000Z",
      authors: [{ name: "The Host", url: "https://site.example/" }],
    });
  });

  it("writes the same files for the same content, whatever the clock says", () => {
    expect(rssFeed(source)).toBe(rssFeed({ ...source }));
    expect(rssFeed({ ...source, published: [] })).toContain("<lastBuildDate>Thu, 01 Jan 1970");
  });
});

describe("the moment an Effect is published", () => {
  it("is the start of its day in the brand's time zone, daylight saving included", () => {
    expect(startOfDay("2026-07-01", "America/New_York").toISOString()).toBe("2026-07-01T04:00:00.000Z");
    expect(startOfDay("2026-12-01", "America/New_York").toISOString()).toBe("2026-12-01T05:00:00.000Z");
    // The day the clocks go forward in Europe, and one far east of UTC.
    expect(startOfDay("2026-03-29", "Europe/Paris").toISOString()).toBe("2026-03-28T23:00:00.000Z");
    expect(startOfDay("2026-11-21", "Pacific/Kiritimati").toISOString()).toBe("2026-11-20T10:00:00.000Z");
  });
});
