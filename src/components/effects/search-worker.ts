/**
 * The archive's search, in a worker of its own so that the page's main thread only draws the
 * answer. The form (src/components/effects/effect-search.tsx) starts it when a reader focuses the
 * field; here Pagefind's script runs on the worker's thread (Pagefind starts no worker of its own
 * outside a page), ranks the pages, and fetches the excerpts of the ten results shown before it
 * answers: one message each way per search, with ten results, not every page found. The build
 * bundles it apart from the site's scripts, beside the index (scripts/search-index.ts).
 */
import {
  type Found,
  PAGE_SIZE,
  SEARCH_OPTIONS,
  SEARCH_WARM_UP,
  type SearchReply,
  type SearchRequest,
  type SearchSite,
} from "./search-setup";

/** What Pagefind's script offers (https://pagefind.app/docs/api/), as far as the search uses it. */
interface Pagefind {
  options(options: { excerptLength?: number; baseUrl?: string }): Promise<void>;
  init(): Promise<void>;
  debouncedSearch(term: string, options?: object, wait?: number): Promise<PagefindSearch | null>;
  search(term: string): Promise<PagefindSearch>;
}
interface PagefindSearch {
  results: PagefindHit[];
}
interface PagefindHit {
  data(): Promise<{ url: string; excerpt: string; meta: { title?: string; date?: string } }>;
}

/** The worker's side of its messages (the DOM's types describe a page, not a worker). */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<SearchRequest>) => void) | null;
  postMessage(reply: SearchReply): void;
};

let loading: Promise<Pagefind> | null = null;
/**
 * The last search past its pause: its words, every page found (for "Show more") and the answer with
 * the first results' excerpts. The same words asked again (Enter after the pause) get this answer
 * rather than a second ranking of every page.
 */
let last: { query: string; results: PagefindHit[]; answer: Promise<Found[]> } | null = null;

/** Pagefind's script from the built site, once; a failed load may be tried again. */
function loadPagefind({ script, baseUrl }: SearchSite): Promise<Pagefind> {
  loading ??= (async () => {
    const pagefind = (await import(/* webpackIgnore: true */ script)) as Pagefind;
    await pagefind.options({ ...SEARCH_OPTIONS, baseUrl });
    await pagefind.init();
    await pagefind.search(SEARCH_WARM_UP);
    return pagefind;
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

async function details(results: PagefindHit[]): Promise<Found[]> {
  const data = await Promise.all(results.map((result) => result.data()));
  return data.map(({ url, excerpt, meta }) => ({
    url,
    title: meta.title ?? url,
    date: meta.date ?? "",
    excerpt,
  }));
}

async function answer(request: SearchRequest): Promise<SearchReply> {
  const { id } = request;
  if (request.kind === "load") {
    await loadPagefind(request.site);
    return { id, kind: "ready" };
  }
  if (request.kind === "search") {
    const pagefind = await loadPagefind(request.site);
    if (last?.query === request.query) {
      const { results, answer } = last;
      return { id, kind: "found", query: request.query, total: results.length, found: await answer };
    }
    // Pagefind fetches the part of the index the word needs at once and ranks after the pause;
    // a newer call in the meantime makes this one answer null.
    const search = await pagefind.debouncedSearch(request.query, {}, request.wait);
    if (!search) return { id, kind: "superseded" };
    const answer = details(search.results.slice(0, PAGE_SIZE));
    last = { query: request.query, results: search.results, answer };
    // A failed fetch of excerpts is not kept: the same words asked again search again.
    answer.catch(() => {
      if (last?.answer === answer) last = null;
    });
    return { id, kind: "found", query: request.query, total: search.results.length, found: await answer };
  }
  if (last?.query !== request.query)
    throw new Error(`"Show more" asked for "${request.query}", but the last search was another`);
  const found = await details(last.results.slice(request.from, request.from + PAGE_SIZE));
  return { id, kind: "found", query: request.query, total: last.results.length, found };
}

scope.onmessage = (event) => {
  answer(event.data).then(
    (reply) => scope.postMessage(reply),
    (error: unknown) => scope.postMessage({ id: event.data.id, kind: "failed", message: String(error) }),
  );
};
