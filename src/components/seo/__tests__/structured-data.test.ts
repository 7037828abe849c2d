import { readContent } from "../../../../test/support/content";
import type { Brand, Channels } from "../../../content/schema";
import { absoluteUrl, landingStructuredData } from "../structured-data";

const brand = readContent<Brand>("brand");
const channels = readContent<Channels>("channels").items;

describe("structured data for search engines", () => {
  it("describes a profile page whose person lists every channel", () => {
    const data = landingStructuredData(brand, channels) as { "@graph": Record<string, unknown>[] };
    const profile = data["@graph"].find((node) => node["@type"] === "ProfilePage")!;
    const person = profile.mainEntity as Record<string, unknown>;
    expect(person["@type"]).toBe("Person");
    expect(person.name).toBe(brand.author.name);
    expect(person.sameAs).toEqual(channels.map((channel) => channel.url));
  });

  it("describes the podcast series at the podcast's address, by the same person", () => {
    const data = landingStructuredData(brand, channels) as { "@graph": Record<string, unknown>[] };
    const series = data["@graph"].find((node) => node["@type"] === "PodcastSeries")!;
    expect(series.url).toBe("https://open.spotify.com/show/YOUR-SHOW-ID");
    expect(series.author).toEqual({ "@id": "https://thepurposeeffect.example/#person" });
  });

  it("leaves the podcast out when there is no podcast channel", () => {
    const data = landingStructuredData(
      brand,
      channels.filter((channel) => channel.kind !== "podcast"),
    ) as {
      "@graph": unknown[];
    };
    expect(data["@graph"]).toHaveLength(1);
  });

  it("makes absolute addresses with or without a trailing slash on the site's address", () => {
    expect(absoluteUrl("https://a.example", "/social-card.png")).toBe("https://a.example/social-card.png");
    expect(absoluteUrl("https://a.example/", "/404/")).toBe("https://a.example/404/");
  });
});
