// An Effect's text.
import type React from "react";
import type { EffectFields } from "../../effects/effect-nodes";
import { StaticHtml } from "../../loading/static-html";

interface EffectArticleProps {
  effect: Pick<EffectFields, "date" | "dateLabel" | "title" | "html">;
  eyebrow: string;
  /** The share button under the body, when the page has one: an island, hydrated (the text is not). */
  children?: React.ReactNode;
}

/** One Effect of the Day: its day, its title and its body (the server's HTML, never hydrated). */
export function EffectArticle({ effect, eyebrow, children }: EffectArticleProps) {
  return (
    // data-pagefind-body: the article is what the archive's search indexes (build/search-index.ts):
    // its title and body; the eyebrow, the same on every Effect, only gives the result its date.
    // Under `npm run cms`, which writes no pages, build/search-index.ts (indexedArticle) writes the
    // same markup for Pagefind; e2e/effect-search.test.ts fails when the two index differently.
    <article
      aria-labelledby="effect-title"
      data-pagefind-body
      className="bg-cream px-5 py-14 sm:px-8 sm:py-20"
    >
      <div className="mx-auto max-w-3xl">
        <StaticHtml name="effect-text">
          <p
            data-pagefind-ignore
            className="text-sm font-semibold uppercase tracking-[0.2em] text-ember-text"
          >
            {eyebrow} ·{" "}
            <time dateTime={effect.date} data-pagefind-meta="date">
              {effect.dateLabel}
            </time>
          </p>
          <h1 id="effect-title" className="mt-4 font-display text-5xl uppercase leading-[0.95] sm:text-6xl">
            {effect.title}
          </h1>
          {/* Rendered at build time from the editor's Markdown, which the build refuses with raw HTML in it
            (src/effects/markdown.ts). */}
          <div className="effect-body mt-8" dangerouslySetInnerHTML={{ __html: effect.html }} />
        </StaticHtml>
        {children}
      </div>
    </article>
  );
}
