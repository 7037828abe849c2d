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

/** The brand as the publisher of the Effects, with the app icon as its logo. */
function publisher(brand: Brand): JsonLd {
  return {
    "@type": "Organization",
    name: brand.name,
    url: absoluteUrl(brand.siteUrl, "/"),
    logo: { "@type": "ImageObject", url: absoluteUrl(brand.siteUrl, "/icons/icon-512x512.png") },
  };
}

export interface PostingFacts {
  headline: string;
  description: string;
  /** The page's path on the site. */
  path: string;
  /** ISO 8601. */
  datePublished: string;
}

/** One Effect of the Day as a `BlogPosting`. */
export function blogPosting(brand: Brand, post: PostingFacts): JsonLd {
  const url = absoluteUrl(brand.siteUrl, post.path);
  return {
    "@type": "BlogPosting",
    headline: post.headline,
    description: post.description,
    url,
    mainEntityOfPage: url,
    datePublished: post.datePublished,
    image: absoluteUrl(brand.siteUrl, brand.socialImage),
    author: {
      "@type": "Person",
      "@id": `${absoluteUrl(brand.siteUrl, "/")}#person`,
      name: brand.author.name,
      url: absoluteUrl(brand.siteUrl, "/"),
    },
    publisher: publisher(brand),
  };
}

export function effectStructuredData(brand: Brand, post: PostingFacts): JsonLd {
  return { "@context": "https://schema.org", ...blogPosting(brand, post) };
}

/** A page of the archive: a `Blog` listing its Effects as `BlogPosting`s. */
export function archiveStructuredData(
  brand: Brand,
  archive: { name: string; description: string; path: string; posts: PostingFacts[] },
): JsonLd {
  return {
    "@context": "https://schema.org",
    "@type": "Blog",
    name: archive.name,
    description: archive.description,
    url: absoluteUrl(brand.siteUrl, archive.path),
    publisher: publisher(brand),
    blogPost: archive.posts.map((post) => blogPosting(brand, post)),
  };
}
