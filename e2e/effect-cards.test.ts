// Each published Effect's social card, as the tests' build made it and the local stack serves it.
import { cardContent, drawCard, CARD_HEIGHT, CARD_WIDTH } from "../src/effects/card-layout";
import { effectTexts, publishedFixtures, scheduledFixtures } from "../test/support/effects";
import { differingShare, pngSize } from "../test/support/png";
import { describeInBrowser, useSite } from "../test/support/site";
import { content } from "../test/support/texts";

const SITE = "https://thepurposeeffect.example";
/** The brand's bar at the top of every card, above the ember rule. */
const HEADER = { top: 0, height: 120 };

/** The `content` of the page's `<meta>` named `key` (by `property` or `name`), unescaped. */
function metaContent(html: string, key: string): string | undefined {
  const tag = new RegExp(`<meta(?=[^>]*\\s(?:property|name)="${key.replace(/:/g, "\\:")}")[^>]*>`).exec(html);
  const value = tag ? /\scontent="([^"]*)"/.exec(tag[0])?.[1] : undefined;
  return value
    ?.replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

const dateLabel = (date: string) =>
  new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "long" }).format(
    new Date(`${date}T00:00:00Z`),
  );

// The tests' site is built with Gatsby's production build, like the real one; only the page is
// fetched here, as a social network's crawler fetches it (no JavaScript).
describeInBrowser("each Effect's social card", () => {
  const site = useSite();
  const get = (path: string) => fetch(new URL(path, site.url));
  const cardOptions = { brand: content.brand, eyebrow: effectTexts.effect.eyebrow };

  it.each(publishedFixtures.map((effect) => [effect.date, effect] as const))(
    "%s: its page names its own 1200x630 card, with alt text, and the card shows its title",
    async (date, effect) => {
      const html = await (await get(`/effects/${date}/`)).text();
      const card = `${SITE}/effects/${date}/card.png`;
      const alt = `${effect.title}: the Effect of the Day for ${dateLabel(date)}, from ${content.brand.name}`;
      expect({
        image: metaContent(html, "og:image"),
        width: metaContent(html, "og:image:width"),
        height: metaContent(html, "og:image:height"),
        alt: metaContent(html, "og:image:alt"),
        twitterCard: metaContent(html, "twitter:card"),
        twitterImage: metaContent(html, "twitter:image"),
        twitterAlt: metaContent(html, "twitter:image:alt"),
      }).toEqual({
        image: card,
        width: "1200",
        height: "630",
        alt,
        twitterCard: "summary_large_image",
        twitterImage: card,
        twitterAlt: alt,
      });

      const response = await get(new URL(card).pathname);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      const png = Buffer.from(await response.arrayBuffer());
      expect(await pngSize(png)).toEqual({ format: "png", width: CARD_WIDTH, height: CARD_HEIGHT });
      // The title is drawn: the card is the one drawn for this Effect, and a card of the same day
      // without its title differs from it below the brand's bar, which stays the same (but for
      // a few edge pixels: each card picks its own 16 colours).
      const [expected, untitled] = await Promise.all([
        drawCard(cardContent(effect, cardOptions)),
        drawCard(cardContent({ ...effect, title: " " }, cardOptions)),
      ]);
      expect(await differingShare(png, expected)).toBe(0);
      expect(await differingShare(png, untitled)).toBeGreaterThan(0.01);
      expect(await differingShare(png, untitled, HEADER)).toBeLessThan(0.001);
    },
  );

  it("leaves the other pages on the brand's card, and draws none for an Effect not yet published", async () => {
    for (const path of ["/", "/effects/"]) {
      const html = await (await get(path)).text();
      expect(metaContent(html, "og:image")).toBe(`${SITE}${content.brand.socialImage}`);
      expect(metaContent(html, "twitter:image:alt")).toBe(content.brand.socialImageAlt);
    }
    expect((await get(`/effects/${scheduledFixtures[0].date}/card.png`)).status).toBe(404);
  });
});
