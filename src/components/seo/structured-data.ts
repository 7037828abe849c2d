// The landing page's JSON-LD.
import type { Brand, Channel } from "../../content/schema";

/** Absolute address of a path on the site (`/social-card.png` → `https://site/social-card.png`). */
export const absoluteUrl = (siteUrl: string, path: string): string =>
  new URL(path, `${siteUrl.replace(/\/$/, "")}/`).href;

type JsonLd = Record<string, unknown>;

/** The person behind the brand; `sameAs` lists every channel so search engines join the profiles. */
export function person(brand: Brand, channels: readonly Channel[]): JsonLd {
  return {
    "@type": "Person",
    "@id": `${absoluteUrl(brand.siteUrl, "/")}#person`,
    name: brand.author.name,
    description: brand.author.credit,
    url: absoluteUrl(brand.siteUrl, "/"),
    sameAs: channels.map((channel) => channel.url),
  };
}

export function profilePage(brand: Brand, channels: readonly Channel[]): JsonLd {
  return {
    "@type": "ProfilePage",
    name: brand.name,
    description: brand.description,
    url: absoluteUrl(brand.siteUrl, "/"),
    mainEntity: person(brand, channels),
  };
}

export function podcastSeries(brand: Brand, podcast: Channel): JsonLd {
  return {
    "@type": "PodcastSeries",
    name: brand.name,
    description: brand.description,
    url: podcast.url,
    image: absoluteUrl(brand.siteUrl, brand.socialImage),
    author: { "@id": `${absoluteUrl(brand.siteUrl, "/")}#person` },
  };
}

/** The landing page's JSON-LD: the profile and, when there is one, the podcast. */
export function landingStructuredData(brand: Brand, channels: readonly Channel[]): JsonLd {
  const podcast = channels.find((channel) => channel.kind === "podcast");
  return {
    "@context": "https://schema.org",
    "@graph": [profilePage(brand, channels), ...(podcast ? [podcastSeries(brand, podcast)] : [])],
  };
}
