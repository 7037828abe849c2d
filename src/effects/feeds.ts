/**
 * The feeds of the latest Effects: RSS 2.0 (/effects/rss.xml) and JSON Feed 1.1
 * (/effects/feed.json), each item with the Effect's full HTML.
 */
import { Feed } from "feed";
import { absoluteUrl } from "../components/seo/structured-data";
import type { Effect } from "./effects";
import { startOfDay } from "../../supabase/functions/_shared/contract/calendar-day";
import { markdownToHtml } from "./markdown";
import { archivePath, effectPath, feedTitle as titleOf, JSON_FEED_PATH, RSS_PATH } from "./paths";

export const FEED_SIZE = 20;

export interface FeedSource {
  /** Newest first, as publishedEffects returns them. */
  published: readonly Effect[];
  siteUrl: string;
  timeZone: string;
  brandName: string;
  authorName: string;
  name: string;
  description: string;
}

interface FeedItem {
  url: string;
  title: string;
  summary: string;
  html: string;
  publishedAt: Date;
}

const feedTitle = (source: FeedSource): string => titleOf(source.name, source.brandName);

function items(source: FeedSource): FeedItem[] {
  return source.published.slice(0, FEED_SIZE).map((effect) => ({
    url: absoluteUrl(source.siteUrl, effectPath(effect.date)),
    title: effect.title,
    summary: effect.summary,
    html: markdownToHtml(effect.body, source.siteUrl),
    publishedAt: startOfDay(effect.date, source.timeZone),
  }));
}

// With no Effect yet, the feed's date is fixed rather than the build's clock, so two builds of the
// same content write the same file.
const updated = (entries: FeedItem[]): Date => entries[0]?.publishedAt ?? new Date(0);

export function rssFeed(source: FeedSource): string {
  const entries = items(source);
  const feed = new Feed({
    title: feedTitle(source),
    description: source.description,
    id: absoluteUrl(source.siteUrl, archivePath(1)),
    link: absoluteUrl(source.siteUrl, archivePath(1)),
    language: "en",
    copyright: `© ${source.brandName}`,
    updated: updated(entries),
    generator: source.brandName,
    feedLinks: { rss: absoluteUrl(source.siteUrl, RSS_PATH) },
    author: { name: source.authorName, link: absoluteUrl(source.siteUrl, "/") },
  });
  for (const entry of entries) {
    feed.addItem({
      title: entry.title,
      id: entry.url,
      link: entry.url,
      description: entry.summary,
      content: entry.html,
      date: entry.publishedAt,
      author: [{ name: source.authorName }],
    });
  }
  return feed.rss2();
}

/**
 * JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/), written here because the `feed` package
 * only writes version 1 (singular `author`, no `language`).
 */
export function jsonFeed(source: FeedSource): string {
  const author = { name: source.authorName, url: absoluteUrl(source.siteUrl, "/") };
  const document = {
    version: "https://jsonfeed.org/version/1.1",
    title: feedTitle(source),
    description: source.description,
    home_page_url: absoluteUrl(source.siteUrl, archivePath(1)),
    feed_url: absoluteUrl(source.siteUrl, JSON_FEED_PATH),
    language: "en",
    authors: [author],
    items: items(source).map((entry) => ({
      id: entry.url,
      url: entry.url,
      title: entry.title,
      summary: entry.summary,
      content_html: entry.html,
      date_published: entry.publishedAt.toISOString(),
      authors: [author],
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
