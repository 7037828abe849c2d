/**
 * How the archive's search loads and calls Pagefind, shared by the page's form
 * (src/components/effects/effect-search.tsx), the worker that runs the search off the page's main
 * thread (src/components/effects/search-worker.ts) and the benchmark that times it
 * (bench/build-year.ts).
 */

/** Where the build writes Pagefind's script beside its index (build/search-index.ts). */
export const SEARCH_SCRIPT = "/pagefind/pagefind.js";

/**
 * The search's worker (src/components/effects/search-worker.ts), bundled by the build beside the
 * index (build/search-index.ts), not by webpack: a chunk of webpack's would add its name to the
 * runtime every page loads first.
 */
export const SEARCH_WORKER = "/effect-search-worker.js";

/** Pagefind's options: the words around a match shown in a result (https://pagefind.app/docs/api/). */
export const SEARCH_OPTIONS = { excerptLength: 24 };

/** The pause after a key before the search runs; the index part the word needs loads at once. */
export const SEARCH_PAUSE_MS = 200;

/** Results shown at once; "Show more" adds as many again. */
export const PAGE_SIZE = 10;

/**
 * The word of the search the worker runs once Pagefind is in, while the reader is still typing.
 * Chromium first runs Pagefind's WebAssembly unoptimised and optimises what runs long: a first
 * search for a common word took about 20 ms longer in CPU than the same search after a search over
 * many pages (docs/testing.md). "a" is in nearly every English Effect, so its search ranks nearly
 * every page; it fetches the one part of the index that holds it.
 */
export const SEARCH_WARM_UP = "a";

/**
 * The letter whose part of the index the worker fetches after the warm-up search, unless the reader
 * has searched by then. Pagefind inflates every part it fetches with a gzip reader of its own in
 * JavaScript, which V8 runs unoptimised at first: after its metadata and the warm-up's part, a
 * third part still took 4-9 ms to inflate, and 1 ms once one more part had been through
 * (docs/testing.md). The ten excerpts go through the same reader. Words in "e" are in nearly every
 * English Effect and far from "a"'s in the index's order; while the index is one part (a few
 * hundred Effects), that part is in already and nothing more is fetched.
 */
export const SEARCH_WARM_UP_PRELOAD = "e";

/** One Effect found: where it is, its title, its day and the words around the match. */
export interface Found {
  url: string;
  title: string;
  date: string;
  /** The page's text around the words found, HTML-escaped by Pagefind, the words in `<mark>`. */
  excerpt: string;
}

/**
 * Where the site is, with its path prefix: Pagefind's script, and the root its results' links start
 * from (in a worker, Pagefind would otherwise make them absolute URLs).
 */
export interface SearchSite {
  script: string;
  baseUrl: string;
}

/** What the page asks the search worker; `id` pairs each question with its answer. */
export type SearchRequest =
  | { id: number; kind: "load"; site: SearchSite }
  /** The results for `query` after `wait` ms, unless a newer search comes first. */
  | { id: number; kind: "search"; site: SearchSite; query: string; wait: number }
  /** The next PAGE_SIZE of the last answered search's results, from the `from`-th. */
  | { id: number; kind: "more"; query: string; from: number };

export type SearchReply =
  | { id: number; kind: "ready" }
  | { id: number; kind: "found"; query: string; total: number; found: Found[] }
  /** A newer search came before this one ran: its answer is the one to show. */
  | { id: number; kind: "superseded" }
  | { id: number; kind: "failed"; message: string };
