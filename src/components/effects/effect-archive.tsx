// The archive's list and its pages.
import { graphql } from "gatsby";
import type { EffectPages } from "../../content/schema";
import type { ArchivePage } from "../../effects/publication";
import { StaticHtml } from "../../loading/static-html";
import { EffectSearch } from "./effect-search";

interface EffectArchiveProps {
  archive: ArchivePage;
  texts: EffectPages["archive"];
  /** "Page 2 of 3", already filled in. */
  pageLabel: string;
}

/**
 * One page of past Effects: each one's day, title and summary, linking to its page. Everything
 * but the search is the server's HTML, which React does not hydrate; the search is an island.
 */
export function EffectArchive({ archive, texts, pageLabel }: EffectArchiveProps) {
  return (
    <section aria-labelledby="archive-title" className="bg-cream px-5 py-14 sm:px-8 sm:py-20">
      <div className="mx-auto max-w-3xl">
        <StaticHtml name="archive-intro">
          <h1 id="archive-title" className="font-display text-5xl uppercase leading-[0.95] sm:text-6xl">
            {texts.title}
          </h1>
          <p className="mt-4 text-lg text-stone-700">{texts.intro}</p>
        </StaticHtml>
        {archive.entries.length === 0 ? null : <EffectSearch texts={texts.search} />}
        <StaticHtml name="archive-list">
          {archive.entries.length === 0 ? (
            <p className="mt-10 text-lg">{texts.emptyText}</p>
          ) : (
            <ol className="mt-10 space-y-5">
              {archive.entries.map((entry) => (
                <li key={entry.date}>
                  <article
                    aria-labelledby={`effect-${entry.date}`}
                    className="rounded-2xl bg-white p-6 shadow ring-1 ring-ink/5"
                  >
                    <p className="text-sm font-semibold uppercase tracking-wider text-ember-text">
                      <time dateTime={entry.date}>{entry.dateLabel}</time>
                    </p>
                    <h2 id={`effect-${entry.date}`} className="mt-2 text-2xl font-bold leading-snug">
                      <a href={entry.path} className="hover:underline">
                        {entry.title}
                      </a>
                    </h2>
                    <p className="mt-2 text-stone-700">{entry.summary}</p>
                  </article>
                </li>
              ))}
            </ol>
          )}
          {archive.pageCount > 1 ? (
            <nav aria-label={pageLabel} className="mt-10 flex flex-wrap items-center justify-between gap-4">
              {archive.newerPath ? (
                <a href={archive.newerPath} rel="prev" className="btn-outline-dark">
                  {texts.newerLabel}
                </a>
              ) : (
                <span />
              )}
              <p className="text-stone-700">{pageLabel}</p>
              {archive.olderPath ? (
                <a href={archive.olderPath} rel="next" className="btn-outline-dark">
                  {texts.olderLabel}
                </a>
              ) : (
                <span />
              )}
            </nav>
          ) : null}
        </StaticHtml>
      </div>
    </section>
  );
}

export const query = graphql`
  fragment EffectArchiveContent on EffectPagesArchive {
    title
    intro
    emptyText
    pageLabel
    newerLabel
    olderLabel
    search {
      label
      placeholder
      buttonLabel
      searchingText
      oneResultText
      resultsText
      noResultsText
      moreLabel
      errorText
    }
  }
`;
