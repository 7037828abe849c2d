/**
 * JSON-LD of the Effects' pages, apart from the landing page's (structured-data.ts) so that the
 * landing page's script does not carry it.
 */
import type { Brand } from "../../content/schema";
import { absoluteUrl } from "./structured-data";

type JsonLd = Record<string, unknown>;

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
