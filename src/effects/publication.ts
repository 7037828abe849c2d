/**
 * The published Effects as the site shows them: one page per Effect with its neighbours, and the
 * archive in pages of 20. Pure: gatsby-node.ts hands these to the templates as page context.
 */
import type { Effect } from "./effects";
import { dayLabel, startOfDay } from "../../supabase/functions/_shared/contract/calendar-day";
import { markdownToHtml } from "./markdown";
import { archivePath, effectPath } from "./paths";

export const ARCHIVE_PAGE_SIZE = 20;

export interface EffectLink {
  path: string;
  title: string;
  dateLabel: string;
}

export interface EffectPageContext {
  date: string;
  dateLabel: string;
  /** When the Effect was published: the start of its day in the brand's time zone (ISO 8601). */
  publishedAt: string;
  title: string;
  summary: string;
  /** The body rendered by src/effects/markdown.ts, the same HTML the feeds and the mail carry. */
  html: string;
  /** The day before's Effect, and the day after's (null at either end). */
  previous: EffectLink | null;
  next: EffectLink | null;
}

export interface ArchiveEntry extends EffectLink {
  date: string;
  publishedAt: string;
  summary: string;
}

export interface ArchivePageContext {
  page: number;
  pageCount: number;
  entries: ArchiveEntry[];
  /** The page with newer Effects, and the one with older Effects (null at either end). */
  newerPath: string | null;
  olderPath: string | null;
}

const linkTo = (effect: Effect | undefined): EffectLink | null =>
  effect ? { path: effectPath(effect.date), title: effect.title, dateLabel: dayLabel(effect.date) } : null;

/** The page of each published Effect; `published` is newest first. */
export function effectPages(
  published: readonly Effect[],
  siteUrl: string,
  timeZone: string,
): Array<{ path: string; context: EffectPageContext }> {
  return published.map((effect, index) => ({
    path: effectPath(effect.date),
    context: {
      date: effect.date,
      dateLabel: dayLabel(effect.date),
      publishedAt: startOfDay(effect.date, timeZone).toISOString(),
      title: effect.title,
      summary: effect.summary,
      html: markdownToHtml(effect.body, siteUrl),
      previous: linkTo(published[index + 1]),
      next: linkTo(published[index - 1]),
    },
  }));
}

/** The archive's pages, newest Effects first; one (empty) page when nothing is published yet. */
export function archivePages(
  published: readonly Effect[],
  timeZone: string,
): Array<{ path: string; context: ArchivePageContext }> {
  const pageCount = Math.max(1, Math.ceil(published.length / ARCHIVE_PAGE_SIZE));
  return Array.from({ length: pageCount }, (_, index) => {
    const page = index + 1;
    return {
      path: archivePath(page),
      context: {
        page,
        pageCount,
        entries: published.slice(index * ARCHIVE_PAGE_SIZE, page * ARCHIVE_PAGE_SIZE).map((effect) => ({
          ...(linkTo(effect) as EffectLink),
          date: effect.date,
          publishedAt: startOfDay(effect.date, timeZone).toISOString(),
          summary: effect.summary,
        })),
        newerPath: page > 1 ? archivePath(page - 1) : null,
        olderPath: page < pageCount ? archivePath(page + 1) : null,
      },
    };
  });
}
