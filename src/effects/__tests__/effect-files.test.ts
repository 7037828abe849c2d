import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readContent } from "../../../test/support/content";
import type { EffectPages, Newsletter } from "../../content/schema";
import { writeEffectFiles } from "../effect-files";

const effect = (date: string) => ({
  date,
  file: `${date}.yaml`,
  title: `T ${date}`,
  summary: "S.",
  body: "Body.",
});
const brand = { name: "Brand", siteUrl: "https://site.example", timeZone: "UTC", author: { name: "Host" } };

describe("the files an Effect has besides its page", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "effect-files-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const texts = readContent<EffectPages>("effect-pages");
  const { mails } = readContent<Newsletter>("newsletter");

  it("writes both feeds and a mail edition per published Effect", async () => {
    await writeEffectFiles(dir, {
      published: [effect("2026-11-22"), effect("2026-11-21")],
      brand,
      texts,
      mails,
    });
    const mail = JSON.parse(readFileSync(path.join(dir, "effects/2026-11-22/mail.json"), "utf8"));
    expect(mail).toMatchObject({ date: "2026-11-22", url: "https://site.example/effects/2026-11-22/" });
    expect(existsSync(path.join(dir, "effects/2026-11-21/mail.json"))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, "effects/feed.json"), "utf8")).items).toHaveLength(2);
    expect(readFileSync(path.join(dir, "effects/rss.xml"), "utf8")).toContain(
      "<title><![CDATA[T 2026-11-22]]>",
    );
  });

  it("writes no mail edition for an Effect after the real day, even in a build for a day to come", async () => {
    const published = [effect("2026-11-24"), effect("2026-11-23")];
    await writeEffectFiles(dir, { published, brand, texts, mails, today: "2026-11-23" });
    expect(existsSync(path.join(dir, "effects/2026-11-23/mail.json"))).toBe(true);
    expect(existsSync(path.join(dir, "effects/2026-11-24/mail.json"))).toBe(false);
    // The welcome mail's Effect is the newest with a mail edition, never the day to come.
    expect(JSON.parse(readFileSync(path.join(dir, "newsletter/latest.json"), "utf8"))).toEqual({
      date: "2026-11-23",
    });
    // The feeds are the site's: they show what the build publishes.
    expect(JSON.parse(readFileSync(path.join(dir, "effects/feed.json"), "utf8")).items).toHaveLength(2);
  });

  it("removes the mail edition an earlier build left for an Effect it no longer publishes", async () => {
    // An earlier build for a later day published the 23rd; its page is gone, its mail must go too.
    await writeEffectFiles(dir, {
      published: [effect("2026-11-23"), effect("2026-11-22")],
      brand,
      texts,
      mails,
    });
    mkdirSync(path.join(dir, "effects/2026-11-20"), { recursive: true });
    writeFileSync(path.join(dir, "effects/2026-11-20/index.html"), "<p>kept by Gatsby's own rules</p>");
    writeFileSync(path.join(dir, "effects/2026-11-20/mail.json"), "{}");
    await writeEffectFiles(dir, { published: [effect("2026-11-22")], brand, texts, mails });
    expect(existsSync(path.join(dir, "effects/2026-11-23"))).toBe(false);
    expect(existsSync(path.join(dir, "effects/2026-11-20/mail.json"))).toBe(false);
    expect(existsSync(path.join(dir, "effects/2026-11-20/index.html"))).toBe(true);
    expect(existsSync(path.join(dir, "effects/2026-11-22/mail.json"))).toBe(true);
  });

  it("names no latest edition when no Effect has a mail edition", async () => {
    await writeEffectFiles(dir, { published: [effect("2026-11-22")], brand, texts, mails });
    expect(existsSync(path.join(dir, "newsletter/latest.json"))).toBe(true);
    await writeEffectFiles(dir, {
      published: [effect("2026-11-24")],
      brand,
      texts,
      mails,
      today: "2026-11-23",
    });
    expect(existsSync(path.join(dir, "newsletter/latest.json"))).toBe(false);
  });
});
