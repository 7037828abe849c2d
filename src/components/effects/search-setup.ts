/**
 * How the archive's search loads and calls Pagefind (src/components/effects/effect-search.tsx),
 * shared with the benchmark that times it (bench/build-year.ts), so both do the same.
 */

/** Where the build writes Pagefind's script beside its index (scripts/search-index.ts). */
export const SEARCH_SCRIPT = "/pagefind/pagefind.js";

/** Pagefind's options: the words around a match shown in a result (https://pagefind.app/docs/api/). */
export const SEARCH_OPTIONS = { excerptLength: 24 };

/** The pause after a key before the search runs; the index part the word needs loads at once. */
export const SEARCH_PAUSE_MS = 200;
