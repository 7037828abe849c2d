// The archive's search over every published Effect.
import { withPrefix } from "gatsby";
import { useEffect, useId, useRef, useState } from "react";
import type { EffectPages } from "../../content/schema";
import { useHydrated } from "../../newsletter/use-hydrated";
import { fillPlaceholders } from "../../../supabase/functions/_shared/contract/mail-template";
import { SEARCH_OPTIONS, SEARCH_PAUSE_MS, SEARCH_SCRIPT } from "./search-setup";

export type SearchTexts = EffectPages["archive"]["search"];

/** Results shown at once; "Show more" adds as many again. */
const PAGE_SIZE = 10;

/** What Pagefind's script offers (https://pagefind.app/docs/api/), as far as the archive uses it. */
interface Pagefind {
  options(options: { excerptLength?: number }): Promise<void>;
  init(): Promise<void>;
  debouncedSearch(term: string, options?: object, wait?: number): Promise<PagefindSearch | null>;
  /** `null`: every page, no word to look up (no part of the index fetched). */
  search(term: string | null): Promise<PagefindSearch>;
}
interface PagefindSearch {
  results: { id: string; data(): Promise<PagefindResult> }[];
}
interface PagefindResult {
  url: string;
  /** The page's text around the words found, HTML-escaped by Pagefind, the words in `<mark>`. */
  excerpt: string;
  meta: { title?: string; date?: string };
}

/** One Effect found: where it is, its title, its day and the words around the match. */
export interface Found {
  url: string;
  title: string;
  date: string;
  excerpt: string;
}

type State =
  | { kind: "idle" }
  | { kind: "searching"; query: string }
  | { kind: "done"; query: string; total: number; found: Found[]; more: PagefindSearch["results"] }
  | { kind: "failed" };

let loading: Promise<Pagefind> | null = null;
/** Set once Pagefind is in: from then on the last results stay until the next ones replace them. */
let loaded = false;

/**
 * Pagefind's script, imported from the built site the first time it is asked for (never bundled:
 * nothing of the search reaches a reader who does not use it). A failed load may be tried again.
 */
function loadPagefind(): Promise<Pagefind> {
  loading ??= (async () => {
    const pagefind = (await import(/* webpackIgnore: true */ withPrefix(SEARCH_SCRIPT))) as Pagefind;
    await pagefind.options(SEARCH_OPTIONS);
    await pagefind.init();
    // One search over every page while the reader is still typing: Chromium first runs Pagefind's
    // WebAssembly and script unoptimised, which made a reader's first search for a common word
    // about twice as slow in CPU as the next (docs/testing.md). It fetches nothing.
    await pagefind.search(null);
    loaded = true;
    return pagefind;
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

async function details(results: PagefindSearch["results"]): Promise<Found[]> {
  const data = await Promise.all(results.map((result) => result.data()));
  return data.map(({ url, excerpt, meta }) => ({
    url,
    title: meta.title ?? url,
    date: meta.date ?? "",
    excerpt,
  }));
}

/**
 * A search form over the published Effects, shown only once React runs: without JavaScript the
 * archive is its plain list and nothing pretends to search. The index loads when the reader
 * focuses the field, the results follow the typing, and how many were found is announced.
 */
export function EffectSearch({ texts }: { texts: SearchTexts }) {
  const hydrated = useHydrated();
  const id = useId();
  const [state, setState] = useState<State>({ kind: "idle" });
  const latest = useRef("");
  const list = useRef<HTMLOListElement>(null);
  /** After "Show more": the first of the results it added, which takes the focus from the button. */
  const focusFrom = useRef<number | null>(null);

  useEffect(() => {
    if (focusFrom.current === null) return;
    list.current?.querySelectorAll("a")[focusFrom.current]?.focus();
    focusFrom.current = null;
  }, [state]);

  const run = async (raw: string, immediately: boolean) => {
    const query = raw.trim();
    latest.current = query;
    if (query === "") {
      setState({ kind: "idle" });
      return;
    }
    // "Searching…" only while the search's files load, not at every key (the status is announced).
    if (!loaded) setState({ kind: "searching", query });
    try {
      const pagefind = await loadPagefind();
      // Each key fetches the part of the index the word needs at once (Pagefind's debouncedSearch
      // preloads it) and searches after a pause; Enter searches now and cancels the pending search.
      const search = await pagefind.debouncedSearch(query, {}, immediately ? 0 : SEARCH_PAUSE_MS);
      // A newer query is on its way (or was typed since): its answer is the one to show.
      if (!search || latest.current !== query) return;
      const found = await details(search.results.slice(0, PAGE_SIZE));
      if (latest.current !== query) return;
      setState({
        kind: "done",
        query,
        total: search.results.length,
        found,
        more: search.results.slice(PAGE_SIZE),
      });
    } catch {
      if (latest.current === query) setState({ kind: "failed" });
    }
  };

  const showMore = async () => {
    if (state.kind !== "done") return;
    const next = await details(state.more.slice(0, PAGE_SIZE));
    focusFrom.current = state.found.length;
    setState({ ...state, found: [...state.found, ...next], more: state.more.slice(PAGE_SIZE) });
  };

  // The same height before and after React runs, so the list below does not move when the form appears.
  if (!hydrated) return <div className="mt-8 h-[4.75rem]" />;

  let status = "";
  if (state.kind === "searching") status = texts.searchingText;
  if (state.kind === "failed") status = texts.errorText;
  if (state.kind === "done") {
    const template =
      state.total === 0 ? texts.noResultsText : state.total === 1 ? texts.oneResultText : texts.resultsText;
    status = fillPlaceholders(template, { query: state.query, count: String(state.total) });
  }

  return (
    <div className="mt-8">
      <form
        role="search"
        aria-label={texts.label}
        onSubmit={(event) => {
          event.preventDefault();
          void run(new FormData(event.currentTarget).get("q")?.toString() ?? "", true);
        }}
      >
        <label htmlFor={`${id}-q`} className="block text-sm font-semibold uppercase tracking-wider">
          {texts.label}
        </label>
        <div className="mt-2 flex gap-2">
          <input
            id={`${id}-q`}
            name="q"
            type="search"
            autoComplete="off"
            placeholder={texts.placeholder}
            aria-describedby={`${id}-status`}
            onFocus={() => void loadPagefind().catch(() => undefined)}
            onChange={(event) => void run(event.currentTarget.value, false)}
            className="h-12 min-w-0 flex-1 rounded-full border border-ink/20 bg-white px-5 text-base text-ink placeholder:text-stone-500 focus:border-ink focus:outline-none focus:ring-2 focus:ring-ember"
          />
          <button type="submit" className="btn-outline-dark h-12 shrink-0">
            {texts.buttonLabel}
          </button>
        </div>
      </form>
      <p id={`${id}-status`} role="status" aria-live="polite" className="mt-4 text-stone-700">
        {status}
      </p>
      {state.kind === "done" && state.found.length > 0 ? (
        // Set apart from the archive's list below by a rule.
        <div className="border-b border-ink/15 pb-10">
          <ol ref={list} aria-labelledby={`${id}-status`} className="mt-4 space-y-3">
            {state.found.map((result) => (
              <li
                key={result.url}
                className="rounded-2xl border-l-4 border-ember bg-white p-5 shadow ring-1 ring-ink/5"
              >
                <p className="text-sm font-semibold uppercase tracking-wider text-ember-text">
                  {result.date}
                </p>
                <a href={result.url} className="mt-1 block text-xl font-bold leading-snug hover:underline">
                  {result.title}
                </a>
                {/* Pagefind's excerpt: the Effect's own text, escaped by Pagefind, the words found in <mark>. */}
                <p
                  className="search-excerpt mt-1 text-stone-700"
                  dangerouslySetInnerHTML={{ __html: result.excerpt }}
                />
              </li>
            ))}
          </ol>
          {state.more.length > 0 ? (
            <button type="button" className="btn-outline-dark mt-4" onClick={() => void showMore()}>
              {texts.moreLabel}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
