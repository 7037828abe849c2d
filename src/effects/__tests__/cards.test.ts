// The build's drawing (satori, sharp), run as the build runs it.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, constants, getPriority, tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { differingShare, pngSize } from "../../../test/support/png";
import { cachedCard, cardKey } from "../card-cache";
import { CARD_HEIGHT, CARD_WIDTH, cardContent, cardSvg, drawCard } from "../card-layout";
import { CardDrawing, writeEffectCards } from "../cards";

const brand = { name: "The Purpose Effect", siteUrl: "https://thepurposeeffect.example" };
const eyebrow = "Effect of the Day";
const content = (title: string, date = "2026-11-21") => cardContent({ date, title }, { brand, eyebrow });
/** The brand's bar at the top of every card, above the ember rule. */
const HEADER = { top: 0, height: 120 };

/** The nice value of each of this process's threads now (Linux gives each thread its own). */
const threadPriorities = (): number[] =>
  readdirSync("/proc/self/task").flatMap((task) => {
    try {
      // The fields after the command's closing parenthesis; the nice value is the 19th field.
      const fields = readFileSync(`/proc/self/task/${task}/stat`, "utf8").split(") ")[1].split(" ");
      return [Number(fields[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });

describe("an Effect's social card", () => {
  // Forty cards drawn on two threads share the machine with the other test files: more than the
  // site project's 5 s for a component, as a build gives them.
  jest.setTimeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "effect-cards-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is a small 1200x630 PNG with the Effect's title drawn on it", async () => {
    const [card, other] = await Promise.all([
      drawCard(content("Show up first")),
      drawCard(content("Rest is part of the work")),
    ]);
    expect(await pngSize(card)).toEqual({ format: "png", width: CARD_WIDTH, height: CARD_HEIGHT });
    expect(card.length).toBeLessThan(40_000);
    // Another title changes the card where the title is, and not the brand's bar above it (but
    // for a few edge pixels: each card picks its own 16 colours).
    expect(await differingShare(card, other)).toBeGreaterThan(0.01);
    expect(await differingShare(card, other, HEADER)).toBeLessThan(0.001);
  });

  it("looks the same as the card drawn whole, though its brand's bar and host are drawn once a build", async () => {
    const shown = content("Your children are watching how you handle a hard day at work");
    // Another card first, so the frame this one gets is the one drawn for the cards before it.
    await drawCard(content("Show up first"));
    const whole = await sharp(Buffer.from(await cardSvg(shown)))
      .png()
      .toBuffer();
    expect(await differingShare(await drawCard(shown), whole)).toBeLessThan(0.001);
  });

  it("is drawn once: the cache answers for an unchanged Effect, a changed title is drawn again", async () => {
    const cache = path.join(dir, "cache");
    const first = await cachedCard(content("Show up first"), cache);
    const again = await cachedCard(content("Show up first"), cache);
    const retitled = await cachedCard(content("Show up first, again"), cache);
    const redated = await cachedCard(content("Show up first", "2026-11-22"), cache);
    expect([first.drawn, again.drawn, retitled.drawn, redated.drawn]).toEqual([true, false, true, true]);
    expect(again.png.equals(first.png)).toBe(true);
    expect(retitled.png.equals(first.png)).toBe(false);
    expect(readdirSync(cache).filter((name) => name.endsWith(".png"))).toHaveLength(3);
  });

  it("goes beside each published Effect's page; a second build draws none, an edited one only it", async () => {
    const cache = path.join(dir, "cache");
    const site = path.join(dir, "public");
    const published = [
      { date: "2026-11-22", title: "Rest is part of the work" },
      { date: "2026-11-21", title: "Show up first" },
    ];
    const cardOf = (date: string) => path.join(site, "effects", date, "card.png");
    expect(await writeEffectCards(site, { published, brand, eyebrow, cacheDir: cache })).toEqual({
      drawn: 2,
      cached: 0,
    });
    const before = readFileSync(cardOf("2026-11-21"));
    expect(await writeEffectCards(site, { published, brand, eyebrow, cacheDir: cache })).toEqual({
      drawn: 0,
      cached: 2,
    });
    const edited = [published[0], { date: "2026-11-21", title: "Show up first, every day" }];
    expect(await writeEffectCards(site, { published: edited, brand, eyebrow, cacheDir: cache })).toEqual({
      drawn: 1,
      cached: 1,
    });
    expect(readFileSync(cardOf("2026-11-21")).equals(before)).toBe(false);
  });

  // Enough Effects for the drawing to go to worker threads, as a build from nothing does.
  const many = Array.from({ length: 40 }, (_, day) => ({
    date: new Date(Date.UTC(2026, 9, day + 1)).toISOString().slice(0, 10),
    title: `Effect number ${day + 1}`,
  }));

  it("is drawn on threads for a build of many Effects, each the same card as drawn alone", async () => {
    const site = path.join(dir, "public");
    const source = { published: many, brand, eyebrow, cacheDir: path.join(dir, "cache") };
    // Linux gives each thread its own priority, and /proc shows them.
    const linux = process.platform === "linux";
    const ownPriority = getPriority();
    const seen = new Set<number>();
    const watch = setInterval(() => linux && threadPriorities().forEach((nice) => seen.add(nice)), 5);
    try {
      // As the build does: begun early, then written into the site.
      const drawing = new CardDrawing();
      expect(drawing.begin(source)).toEqual({
        cards: many.length,
        threads: Math.min(availableParallelism(), 2),
      });
      expect(await drawing.write(site, source)).toEqual({ drawn: many.length, cached: 0 });
    } finally {
      clearInterval(watch);
    }
    if (linux) {
      // The drawing threads give way to the build's; the build's own thread keeps its priority.
      expect(seen).toContain(constants.priority.PRIORITY_LOW);
      expect(getPriority()).toBe(ownPriority);
    }
    for (const effect of [many[0], many[many.length - 1]]) {
      const card = readFileSync(path.join(site, "effects", effect.date, "card.png"));
      expect(card.equals(await drawCard(content(effect.title, effect.date)))).toBe(true);
    }
  });

  it.each([
    ["one after another", 3],
    ["on threads", many.length],
  ])("fails the build naming the Effect whose card could not be drawn (%s)", async (_, count) => {
    // The cache's folder cannot be made: a file is where it should be.
    writeFileSync(path.join(dir, "not-a-folder"), "");
    const cacheDir = path.join(dir, "not-a-folder", "cache");
    const published = many.slice(0, count);
    const failure = await writeEffectCards(path.join(dir, "public"), {
      published,
      brand,
      eyebrow,
      cacheDir,
    }).then(
      () => null,
      (error: Error) => error.message,
    );
    // Any of them, but by its own day and title (the threads fail in the order they draw).
    const [, date, title] =
      /^The social card of the Effect of (\S+) \("(.+)"\) could not be drawn: ENOTDIR/.exec(failure ?? "") ??
      [];
    expect(published).toContainEqual({ date, title });
    // Once the build has failed nothing more is written: with the file that stopped the cache
    // gone, a card still drawing would make the cache's folder and write into it.
    rmSync(path.join(dir, "not-a-folder"));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(readdirSync(dir, { recursive: true })).toEqual([]);
  });

  it("leaves the cache with the cards in use, and those of the last 30 days", async () => {
    const cache = path.join(dir, "cache");
    const site = path.join(dir, "public");
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    const source = { brand, eyebrow, cacheDir: cache };
    await writeEffectCards(site, { ...source, published: [{ date: "2026-11-21", title: "Old title" }] });
    await writeEffectCards(site, { ...source, published: [{ date: "2026-11-21", title: "Recent title" }] });
    const [oldCard, recentCard] = [content("Old title"), content("Recent title")].map(
      (shown) => `${cardKey(shown)}.png`,
    );
    for (const name of readdirSync(cache)) utimesSync(path.join(cache, name), longAgo, longAgo);
    const inUse = { date: "2026-11-22", title: "In use" };
    await writeEffectCards(site, {
      ...source,
      published: [inUse, { date: "2026-11-21", title: "Recent title" }],
    });
    expect(readdirSync(cache).sort()).toEqual(
      [recentCard, `${cardKey(content("In use", "2026-11-22"))}.png`].sort(),
    );
    expect(readdirSync(cache)).not.toContain(oldCard);
  });

  it("is removed with its folder when its Effect is no longer published; another day's files stay", async () => {
    const site = path.join(dir, "public");
    const cacheDir = path.join(dir, "cache");
    const published = [{ date: "2026-11-21", title: "Show up first" }];
    await writeEffectCards(site, {
      published: [...published, { date: "2026-11-20", title: "Gone" }],
      brand,
      eyebrow,
      cacheDir,
    });
    mkdirSync(path.join(site, "effects", "2026-11-19"), { recursive: true });
    writeFileSync(path.join(site, "effects", "2026-11-19", "card.png"), "old");
    writeFileSync(path.join(site, "effects", "2026-11-19", "index.html"), "page");
    await writeEffectCards(site, { published, brand, eyebrow, cacheDir });
    expect(existsSync(path.join(site, "effects", "2026-11-20"))).toBe(false);
    expect(existsSync(path.join(site, "effects", "2026-11-19", "card.png"))).toBe(false);
    expect(existsSync(path.join(site, "effects", "2026-11-19", "index.html"))).toBe(true);
    expect(existsSync(path.join(site, "effects", "2026-11-21", "card.png"))).toBe(true);
  });
});
