/**
 * The published Effects as the site shows them: one page per Effect, and the archive in pages of
 * 20. Pure: gatsby-node.ts creates these pages, whose templates query the `Effect` nodes
 * (src/effects/effect-nodes.ts) with the context given here. Every context carries the
 * publication day, so no query ever reaches an Effect whose day has not come: not as a neighbour,
 * not in the archive.
 */
import { archivePath, effectPath } from "./paths";

export const ARCHIVE_PAGE_SIZE = 20;

/** An Effect as another page links to it: its neighbours, the archive. */
export interface EffectLink {
  path: string;
  title: string;
  dateLabel: string;
}

export interface ArchiveEntry extends EffectLink {
  date: string;
  publishedAt: string;
  summary: string;
}

/** One page of the archive as it is shown. */
export interface ArchivePage {
  page: number;
  pageCount: number;
  entries: readonly ArchiveEntry[];
  /** The page with newer Effects, and the one with older Effects (null at either end). */
  newerPath: string | null;
  olderPath: string | null;
}

interface Publication {
  /** The build's publication day (src/effects/effects.ts): the newest day a query may reach. */
  publishedUpTo: string;
}

export interface EffectPageContext extends Publication {
  date: string;
}

export interface ArchivePageContext extends Publication {
  page: number;
  pageCount: number;
  limit: number;
  skip: number;
}

/** The page of each published Effect. */
export function effectPages(
  published: readonly { date: string }[],
  publishedUpTo: string,
): Array<{ path: string; context: EffectPageContext }> {
  return published.map(({ date }) => ({ path: effectPath(date), context: { date, publishedUpTo } }));
}

/** The archive's pages, newest Effects first; one (empty) page when nothing is published yet. */
export function archivePages(
  publishedCount: number,
  publishedUpTo: string,
): Array<{ path: string; context: ArchivePageContext }> {
  const pageCount = Math.max(1, Math.ceil(publishedCount / ARCHIVE_PAGE_SIZE));
  return Array.from({ length: pageCount }, (_, index) => ({
    path: archivePath(index + 1),
    context: {
      page: index + 1,
      pageCount,
      limit: ARCHIVE_PAGE_SIZE,
      skip: index * ARCHIVE_PAGE_SIZE,
      publishedUpTo,
    },
  }));
}

/** The archive's page `page` of `pageCount` with the entries its query found. */
export function archivePage(
  { page, pageCount }: Pick<ArchivePageContext, "page" | "pageCount">,
  entries: readonly ArchiveEntry[],
): ArchivePage {
  return {
    page,
    pageCount,
    entries,
    newerPath: page > 1 ? archivePath(page - 1) : null,
    olderPath: page < pageCount ? archivePath(page + 1) : null,
  };
}
