/** The addresses of the Effects on the site. No dependencies: the browser's code may import it. */

export const effectPath = (date: string): string => `/effects/${date}/`;
export const archivePath = (page: number): string => (page <= 1 ? "/effects/" : `/effects/page/${page}/`);
export { mailEditionPath } from "../../supabase/functions/_shared/contract/published";
export const RSS_PATH = "/effects/rss.xml";
export const JSON_FEED_PATH = "/effects/feed.json";

/** The feeds' title, as the feeds carry it and as every page's `<link rel="alternate">` names it. */
export const feedTitle = (name: string, brandName: string): string => `${name} | ${brandName}`;

/** An Effect's social card (src/effects/cards.ts), beside its page. */
export const effectCardPath = (date: string): string => `${effectPath(date)}card.png`;
