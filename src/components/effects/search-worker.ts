/**
 * The archive's search, in a worker of its own so that the page's main thread only draws the
 * answer. The form (src/components/effects/effect-search.tsx) starts it when a reader focuses the
 * field; here Pagefind's script runs on the worker's thread (Pagefind starts no worker of its own
 * outside a page), ranks the pages, and fetches the excerpts of the ten results shown before it
 * answers: one message each way per search, with ten results, not every page found. The build
 * bundles it apart from the site's scripts, beside the index (build/search-index.ts).
 */
import {
  type Found,
  PAGE_SIZE,
  SEARCH_OPTIONS,
  SEARCH_WARM_UP,
  SEARCH_WARM_UP_PRELOAD,
  type SearchReply,
  type SearchRequest,
  type SearchSite,
} from "./search-setup";

/** What Pagefind's script offers (https://pagefind.app/docs/api/), as far as the search uses it. */
interface Pagefind {
  options(options: { excerptLength?: number; baseUrl?: string }): Promise<void>;
  init(): Promise<void>;
  preload(term: string): Promise<void>;
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
/** Each search asked takes the next number; one that is no longer the latest answers "superseded". */
let asked = 0;
/**
 * The last search ranked, from the moment its ranking starts: its words and, once there, every page
 * found (for "Show more") with the first results' excerpts. The same words asked again get this
 * answer rather than a second ranking of every page, whether it is there yet or still coming: Enter
 * after the pause, or Enter at once after a paste, which searched without a pause.
 */
let last: { query: string; answer: Promise<{ results: PagefindHit[]; found: Found[] }> } | null = null;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pagefind's script from the built site, once; a failed load may be tried again. */
function loadPagefind({ script, baseUrl }: SearchSite): Promise<Pagefind> {
  loading ??= (async () => {
    const pagefind = (await import(/* webpackIgnore: true */ script)) as Pagefind;
    await pagefind.options({ ...SEARCH_OPTIONS, baseUrl });
    await pagefind.init();
    await pagefind.search(SEARCH_WARM_UP);
    // Not waited for: a reader who searches meanwhile needs their own part of the index first.
    if (asked === 0) pagefind.preload(SEARCH_WARM_UP_PRELOAD).catch(() => undefined);
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

/** Ranks every page for `query` and fetches the first results' excerpts; remembered as `last`. */
function rank(pagefind: Pagefind, query: string): Promise<{ results: PagefindHit[]; found: Found[] }> {
  const answer = (async () => {
    const { results } = await pagefind.search(query);
    return { results, found: await details(results.slice(0, PAGE_SIZE)) };
  })();
  const ranked = { query, answer };
  last = ranked;
  // A failed search is not kept: the same words asked again search again.
  answer.catch(() => {
    if (last === ranked) last = null;
  });
  return answer;
}

async function answer(request: SearchRequest): Promise<SearchReply> {
  const { id } = request;
  if (request.kind === "load") {
    await loadPagefind(request.site);
    return { id, kind: "ready" };
  }
  if (request.kind === "search") {
    const { query, wait } = request;
    const mine = ++asked;
    const pagefind = await loadPagefind(request.site);
    if (last?.query !== query && wait > 0) {
      // The part of the index the words need is fetched at once; the ranking waits for the pause,
      // and a newer search in the meantime makes this one answer "superseded".
      pagefind.preload(query).catch(() => undefined);
      await sleep(wait);
    }
    if (mine !== asked) return { id, kind: "superseded" };
    const { results, found } = await (last?.query === query ? last.answer : rank(pagefind, query));
    if (mine !== asked) return { id, kind: "superseded" };
    return { id, kind: "found", query, total: results.length, found };
  }
  // "Show more" for the words whose results are shown. A search for other words may have begun
  // since (the reader typed on, then back within the pause): those words are ranked again.
  if (!loading) throw new Error(`"Show more" asked for "${request.query}" before the search was loaded`);
  const pagefind = await loading;
  const { results } = await (last?.query === request.query ? last.answer : rank(pagefind, request.query));
  const found = await details(results.slice(request.from, request.from + PAGE_SIZE));
  return { id, kind: "found", query: request.query, total: results.length, found };
}

scope.onmessage = (event) => {
  answer(event.data).then(
    (reply) => scope.postMessage(reply),
    (error: unknown) => scope.postMessage({ id: event.data.id, kind: "failed", message: String(error) }),
  );
};
