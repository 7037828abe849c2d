// Title, description, canonical, Open Graph, Twitter, feeds, JSON-LD.
import { graphql } from "gatsby";
import type { Brand } from "../../content/schema";
import { feedTitle, JSON_FEED_PATH, RSS_PATH } from "../../effects/paths";
import { absoluteUrl } from "./structured-data";

interface SeoProps {
  brand: Brand;
  /** The Effect of the Day's name (content/effect-pages.yaml): every page advertises its feeds. */
  newsletterName: string;
  /** Page title; the home page uses the brand name and tagline. */
  title?: string;
  description?: string;
  pathname: string;
  noindex?: boolean;
  structuredData?: Record<string, unknown>;
  /** An article (an Effect) rather than a website page, published at this ISO 8601 moment. */
  publishedAt?: string;
  /** The page's own social card (1200x630, a path on the site); otherwise the brand's generic one. */
  image?: { path: string; alt: string };
}

/** Everything in <head> for search and sharing, from the brand's content. */
export function Seo({
  brand,
  newsletterName,
  title,
  description = brand.description,
  pathname,
  noindex,
  structuredData,
  publishedAt,
  image: ownImage,
}: SeoProps) {
  const fullTitle = title ? `${title} | ${brand.name}` : `${brand.name} | ${brand.hero.tagline}`;
  const url = absoluteUrl(brand.siteUrl, pathname);
  const image = absoluteUrl(brand.siteUrl, ownImage?.path ?? brand.socialImage);
  const imageAlt = ownImage?.alt ?? brand.socialImageAlt;
  const feeds = feedTitle(newsletterName, brand.name);
  return (
    <>
      <title>{fullTitle}</title>
      <meta name="description" content={description} />
      {/* A noindex page (the 404, shown for any path) has no address of its own: a canonical or
          og:url would point search engines and shares at whatever path was mistyped. */}
      {noindex ? <meta name="robots" content="noindex" /> : <link rel="canonical" href={url} />}
      <link
        rel="alternate"
        type="application/rss+xml"
        title={feeds}
        href={absoluteUrl(brand.siteUrl, RSS_PATH)}
      />
      <link
        rel="alternate"
        type="application/feed+json"
        title={feeds}
        href={absoluteUrl(brand.siteUrl, JSON_FEED_PATH)}
      />
      <meta property="og:type" content={publishedAt ? "article" : "website"} />
      {publishedAt ? <meta property="article:published_time" content={publishedAt} /> : null}
      <meta property="og:site_name" content={brand.name} />
      <meta property="og:locale" content="en_US" />
      <meta property="og:title" content={fullTitle} />
      <meta property="og:description" content={description} />
      {noindex ? null : <meta property="og:url" content={url} />}
      <meta property="og:image" content={image} />
      <meta property="og:image:width" content="1200" />
      <meta property="og:image:height" content="630" />
      <meta property="og:image:alt" content={imageAlt} />
      <meta name="twitter:card" content="summary_large_image" />
      <meta name="twitter:title" content={fullTitle} />
      <meta name="twitter:description" content={description} />
      <meta name="twitter:image" content={image} />
      <meta name="twitter:image:alt" content={imageAlt} />
      {structuredData ? (
        // Serialised by hand: React would escape the quotes of a text child. "<" is escaped so the
        // JSON can never close the script element.
        <script
          type="application/ld+json"
          dangerouslySetInnerHTML={{ __html: JSON.stringify(structuredData).replace(/</g, "\\u003c") }}
        />
      ) : null}
    </>
  );
}

export const query = graphql`
  fragment BrandContent on Brand {
    name
    siteUrl
    description
    socialImage
    socialImageAlt
    author {
      name
      credit
    }
    hero {
      ...HeroContent
    }
  }
`;
