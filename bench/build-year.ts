/**
 * `npm run bench:build-year`: ten years of daily Effects (3,650) stay fast to build and to search.
 * Writes 3,650 Effects into a folder of its own (bench/.tmp/year-effects, handed to the build as
 * `EFFECTS_DIR`, the way the browser tests hand theirs), builds the site cold into
 * bench/.tmp/year-site (no cache: neither Gatsby's nor the social cards', which it keeps in
 * bench/.tmp/year-cards), adds one new Effect and builds again, and times both builds.
 * Then, in Chromium against that build on the local stack, it searches the archive's index
 * (Pagefind, scripts/search-index.ts) as the archive's form does: each query in a fresh browser,
 * after the search's first load (its script, WebAssembly and entry files), typed then Enter, and
 * pasted then Enter; the time from Enter to the answer (the results and the first ten excerpts)
 * and the bytes the query itself transferred from its first key. Prints the numbers, writes
 * bench/year-results.json (read by `npm run bench`, which records the targets met or missed).
 *
 * The Effects' words are drawn from the site's own content and made-up words (a vocabulary of
 * about 6,000, frequent words far more often than rare ones, as in prose), so the index holds as
 * many distinct words as years of writing would. Heavy: run it on a quiet machine.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { buildSiteIfStale, cacheFor } from "../scripts/site-build";
import { SEARCH_OPTIONS, SEARCH_PAUSE_MS, SEARCH_SCRIPT } from "../src/components/effects/search-setup";
import { launchChromium, untilHydrated, VIEWPORTS } from "../test/support/browser";
import { kb } from "../test/support/first-visit";
import { ROOT, startStack } from "../test/support/stack";
import { type HttpsFront, startHttpsFront } from "./https-front";
import { markdownTable, textTable } from "./table";

const BENCH = path.join(ROOT, "bench");
const TMP = path.join(BENCH, ".tmp");
const EFFECTS = path.join(TMP, "year-effects");
const SITE = path.join(TMP, "year-site");
/** The year's social cards, kept between the two builds as a deploy keeps `.effect-cards/`. */
const CARDS = path.join(TMP, "year-cards");
export const RESULTS_FILE = path.join(BENCH, "year-results.json");

export const EFFECT_COUNT = 3_650;
/** The first of the 3,650 days; the last is 3,649 days later, and the new Effect the day after. */
const FIRST_DAY = "2016-11-27";
/** The one Effect (of the 3,650, in the middle) that speaks of patience: the rare word searched. */
const RARE_WORD = "patience";
const RARE_INDEX = 1_825;

export const TARGETS = {
  coldBuildMs: 90_000,
  changedBuildMs: 60_000,
  searchMs: 100,
  searchBytes: 100 * 1024,
};

/** mulberry32: the same Effects on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The site's own words (content/*.yaml) first, then made-up ones to about 6,000. */
function vocabulary(next: () => number): string[] {
  const own = new Set<string>();
  for (const file of readdirSync(path.join(ROOT, "content")).filter((name) => name.endsWith(".yaml"))) {
    for (const word of readFileSync(path.join(ROOT, "content", file), "utf8")
      .toLowerCase()
      .match(/[a-z]{3,}/g) ?? [])
      own.add(word);
  }
  own.delete(RARE_WORD);
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ren",
    "ta",
    "vo",
    "sel",
    "dun",
    "pra",
    "ith",
    "or",
    "bel",
    "cu",
    "nes",
    "ga",
    "tor",
  ];
  const words = [...own];
  while (words.length < 6_000) {
    const parts = 2 + Math.floor(next() * 3);
    const word = Array.from({ length: parts }, () => syllables[Math.floor(next() * syllables.length)]).join(
      "",
    );
    if (!own.has(word)) {
      own.add(word);
      words.push(word);
    }
  }
  return words;
}

const addDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The Effect of day `index`: a title, a summary and three paragraphs of about 50 words. */
function effectYaml(index: number, words: string[], next: () => number): string {
  // Frequent words far more often than rare ones (Zipf-like).
  const word = () => words[Math.floor(next() ** 2.5 * words.length)];
  const sentence = (length: number) => {
    const text = Array.from({ length }, word).join(" ");
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = () => Array.from({ length: 5 }, () => sentence(8 + Math.floor(next() * 5))).join(" ");
  const title =
    index === RARE_INDEX ? "On patience at home" : sentence(3 + Math.floor(next() * 3)).slice(0, -1);
  const body = [paragraph(), paragraph(), paragraph()];
  if (index === RARE_INDEX) body[1] = `Patience is a choice you make before the hard moment. ${body[1]}`;
  return [
    `title: ${JSON.stringify(title)}`,
    `summary: ${JSON.stringify(sentence(14))}`,
    "body: |",
    ...body.flatMap((text, at) => [...(at > 0 ? [""] : []), `  ${text}`]),
    "",
  ].join("\n");
}

/** Writes the 3,650 Effects; returns the day the build treats as today (the last Effect's) and the words. */
function writeYear(): { today: string; words: string[] } {
  rmSync(EFFECTS, { recursive: true, force: true });
  mkdirSync(EFFECTS, { recursive: true });
  const next = random(29);
  const words = vocabulary(next);
  for (let index = 0; index < EFFECT_COUNT; index++) {
    writeFileSync(path.join(EFFECTS, `${addDays(FIRST_DAY, index)}.yaml`), effectYaml(index, words, next));
  }
  return { today: addDays(FIRST_DAY, EFFECT_COUNT - 1), words };
}

function timedBuild(today: string): number {
  const env = { ...process.env, EFFECTS_DIR: EFFECTS, EFFECTS_TODAY: today, EFFECT_CARDS_DIR: CARDS };
  const started = performance.now();
  buildSiteIfStale(ROOT, SITE, env);
  return performance.now() - started;
}

export interface QueryResult {
  query: string;
  results: number;
  /** Typed, then Enter: from Enter to the answer with ten excerpts. */
  ms: number;
  /** Pasted, then Enter: the same, with nothing of the index fetched before. */
  pastedMs?: number;
  /** Transferred from the first key (typed). */
  bytes: number;
  requests: number;
}

export interface YearResults {
  date: string;
  /** The machine's load average (1 minute) before the first build and after the last query. */
  loadAverage: { before: number; after: number };
  effects: number;
  coldBuildMs: number;
  changedBuildMs: number;
  indexBytes: number;
  indexFiles: number;
  /** What the search's first load transferred (script, WebAssembly, entry and metadata), the largest of the queries'. */
  firstLoadBytes: number;
  queries: QueryResult[];
  targets: typeof TARGETS;
}

function folderBytes(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const name of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!name.isFile()) continue;
    files++;
    bytes += readFileSync(path.join(name.parentPath, name.name)).length;
  }
  return { bytes, files };
}

/** A brisk typist's time between two keys (and between the last key and Enter): under the search's pause. */
const KEY_INTERVAL_MS = 120;

/**
 * One query as a reader's first, in a fresh browser context on the archive: the search loads as the
 * archive's form loads it on focus (`/pagefind/pagefind.js`, options, init and its warm-up search,
 * src/components/effects/search-setup.ts), then the reader either types the word, a key every
 * KEY_INTERVAL_MS as the form calls Pagefind on each key (the part of the index the word needs is
 * fetched at once, the search waits for a pause), and presses Enter; or pastes it and presses Enter
 * (nothing fetched before). Timed in the page from Enter to the answer with the first ten results'
 * excerpts; the bytes counted from the first key.
 */
async function measureQuery(browser: Browser, url: string, query: string, typed: boolean) {
  // The front's throwaway certificate for 127.0.0.1 (bench/https-front.ts).
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, ignoreHTTPSErrors: true });
  try {
    const page = await context.newPage();
    await page.goto(`${url}/effects/`);
    // The page's own scripts are in before anything is counted.
    await untilHydrated(page);
    const transferred: { url: string; bytes: number }[] = [];
    page.on("requestfinished", (request) => {
      void request
        .sizes()
        .then((sizes) =>
          transferred.push({ url: request.url(), bytes: sizes.responseBodySize + sizes.responseHeadersSize }),
        );
    });
    // As a string, so that the module import stays the browser's (this file is compiled to CommonJS);
    // the same steps as loadPagefind in src/components/effects/effect-search.tsx.
    await page.evaluate(`(async () => {
      const pagefind = await import(${JSON.stringify(SEARCH_SCRIPT)});
      await pagefind.options(${JSON.stringify(SEARCH_OPTIONS)});
      await pagefind.init();
      await pagefind.search(null);
      window.benchPagefind = pagefind;
    })()`);
    await page.waitForTimeout(200);
    const firstLoadBytes = transferred.reduce((sum, entry) => sum + entry.bytes, 0);
    transferred.length = 0;
    const answer = await page.evaluate(
      async ({ term, typed, keyMs, pauseMs }) => {
        const pagefind = (
          window as unknown as {
            benchPagefind: {
              debouncedSearch(
                term: string,
                options: object,
                wait: number,
              ): Promise<{ results: { data(): Promise<{ url: string }> }[] } | null>;
            };
          }
        ).benchPagefind;
        if (typed) {
          for (let length = 1; length <= term.length; length++) {
            // Not awaited, as the form does not: each key's search is cancelled by the next call.
            void pagefind.debouncedSearch(term.slice(0, length), {}, pauseMs);
            // Inline: a named function here would carry tsx's name helper into the page.
            await new Promise((resolve) => setTimeout(resolve, keyMs));
          }
        }
        const started = performance.now();
        const search = await pagefind.debouncedSearch(term, {}, 0);
        if (!search) throw new Error(`the search for "${term}" was cancelled`);
        await Promise.all(search.results.slice(0, 10).map((result) => result.data()));
        return { ms: performance.now() - started, results: search.results.length };
      },
      { term: query, typed, keyMs: KEY_INTERVAL_MS, pauseMs: SEARCH_PAUSE_MS },
    );
    await page.waitForTimeout(200);
    return {
      firstLoadBytes,
      query: {
        query,
        results: answer.results,
        ms: answer.ms,
        bytes: transferred.reduce((sum, entry) => sum + entry.bytes, 0),
        requests: transferred.length,
      },
    };
  } finally {
    await context.close();
  }
}

/** A word in one Effect, the most frequent word (in nearly every one), one in many; one in none. */
export const searchedWords = (words: string[]): string[] => [
  RARE_WORD,
  words[0],
  words[Math.floor(words.length / 50)],
  "xylophone",
];

/**
 * Each query typed and pasted, in Chromium on the local stack serving the built `site`, over
 * HTTPS and HTTP/2 as the host serves it (bench/https-front.ts): the ten excerpts are ten requests,
 * which HTTP/1.1 would queue behind its six connections.
 */
export async function measureSearch(
  site: string,
  terms: string[],
): Promise<{ queries: QueryResult[]; firstLoadBytes: number }> {
  const [stack, browser] = await Promise.all([startStack({ PUBLIC_DIR: site }), launchChromium()]);
  const queries: QueryResult[] = [];
  let firstLoadBytes = 0;
  let front: HttpsFront | null = null;
  try {
    front = await startHttpsFront(stack.url);
    for (const query of terms) {
      const measured = await measureQuery(browser, front.url, query, true);
      const pasted = await measureQuery(browser, front.url, query, false);
      firstLoadBytes = Math.max(firstLoadBytes, measured.firstLoadBytes, pasted.firstLoadBytes);
      queries.push({ ...measured.query, pastedMs: pasted.query.ms });
    }
  } finally {
    await browser.close();
    await front?.stop();
    await stack.stop();
  }
  return { queries, firstLoadBytes };
}

export async function measureYear(): Promise<YearResults> {
  const loadBefore = os.loadavg()[0];
  const { today, words } = writeYear();
  rmSync(SITE, { recursive: true, force: true });
  rmSync(cacheFor(ROOT, SITE), { recursive: true, force: true });
  // Cold means no cache at all: every one of the 3,650 cards is drawn.
  rmSync(CARDS, { recursive: true, force: true });
  console.log(
    `${EFFECT_COUNT} Effects in ${path.relative(ROOT, EFFECTS)}/, the last on ${today}; a cold build...`,
  );
  const coldBuildMs = timedBuild(today);
  const newDay = addDays(today, 1);
  writeFileSync(
    path.join(EFFECTS, `${newDay}.yaml`),
    'title: "One more day"\nsummary: "The Effect added after the cold build."\nbody: |\n  A new day, one more Effect.\n',
  );
  console.log(`One new Effect (${newDay}); building again...`);
  const changedBuildMs = timedBuild(newDay);
  const index = folderBytes(path.join(SITE, "pagefind"));

  const { queries, firstLoadBytes } = await measureSearch(SITE, searchedWords(words));
  const results: YearResults = {
    date: new Date().toISOString(),
    loadAverage: { before: Number(loadBefore.toFixed(2)), after: Number(os.loadavg()[0].toFixed(2)) },
    effects: EFFECT_COUNT + 1,
    coldBuildMs,
    changedBuildMs,
    indexBytes: index.bytes,
    indexFiles: index.files,
    firstLoadBytes,
    queries,
    targets: TARGETS,
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

export interface YearVerdict {
  target: string;
  met: boolean;
  detail: string;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function yearVerdicts(results: YearResults): YearVerdict[] {
  const slowest = results.queries.reduce((worst, query) => (query.ms > worst.ms ? query : worst));
  const heaviest = results.queries.reduce((worst, query) => (query.bytes > worst.bytes ? query : worst));
  const slowestPasted = results.queries.reduce<(typeof results.queries)[number] | undefined>(
    (worst, query) => ((query.pastedMs ?? -1) > (worst?.pastedMs ?? -1) ? query : worst),
    undefined,
  );
  return [
    {
      target: `${EFFECT_COUNT.toLocaleString("en-US")} Effects build cold in under ${seconds(TARGETS.coldBuildMs)}`,
      met: results.coldBuildMs < TARGETS.coldBuildMs,
      detail: seconds(results.coldBuildMs),
    },
    {
      target: `...and after one new Effect in under ${seconds(TARGETS.changedBuildMs)}`,
      met: results.changedBuildMs < TARGETS.changedBuildMs,
      detail: seconds(results.changedBuildMs),
    },
    {
      target: `A search over them answers in under ${TARGETS.searchMs} ms (typed, Enter to ten results, slowest query)`,
      met: slowest.ms < TARGETS.searchMs,
      detail: `${Math.round(slowest.ms)} ms ("${slowest.query}", ${slowest.results} results)`,
    },
    // A reader who pastes the word has nothing of the index fetched before Enter.
    ...(slowestPasted?.pastedMs === undefined
      ? []
      : [
          {
            target: `...and pasted in under ${TARGETS.searchMs} ms (Enter to ten results, slowest query)`,
            met: slowestPasted.pastedMs < TARGETS.searchMs,
            detail: `${Math.round(slowestPasted.pastedMs)} ms ("${slowestPasted.query}", ${slowestPasted.results} results)`,
          },
        ]),
    {
      target: `...and transfers under ${kb(TARGETS.searchBytes)} (largest query)`,
      met: heaviest.bytes < TARGETS.searchBytes,
      detail: `${kb(heaviest.bytes)} ("${heaviest.query}", ${heaviest.requests} requests)`,
    },
  ];
}

const queryRows = (results: YearResults) =>
  results.queries.map((query) => [
    `"${query.query}"`,
    String(query.results),
    `${Math.round(query.ms)} ms`,
    query.pastedMs === undefined ? "" : `${Math.round(query.pastedMs)} ms`,
    kb(query.bytes),
    String(query.requests),
  ]);
const QUERY_HEADER = [
  "query",
  "Effects found",
  "typed: Enter to answer",
  "pasted: Enter to answer",
  "transferred",
  "requests",
];

/** The paragraph and table `npm run bench` writes into bench/RESULTS.md. */
export function yearSummary(results: YearResults = JSON.parse(readFileSync(RESULTS_FILE, "utf8"))): string {
  return [
    `A year of Effects, ten times over (\`npm run bench:build-year\`): ${EFFECT_COUNT.toLocaleString("en-US")} generated ` +
      `Effects built cold in **${seconds(results.coldBuildMs)}** (target ${seconds(TARGETS.coldBuildMs)}), and again ` +
      `after one new Effect in **${seconds(results.changedBuildMs)}** (target ${seconds(TARGETS.changedBuildMs)}). ` +
      `Their search index: ${results.indexFiles} files, ${kb(results.indexBytes)} in all; a reader's first search ` +
      `loads ${kb(results.firstLoadBytes)} (Pagefind's script, WebAssembly and entry files), then each query, in a ` +
      `fresh browser (target under ${TARGETS.searchMs} ms and ${kb(TARGETS.searchBytes)}); load average ` +
      `${results.loadAverage.before} before and ${results.loadAverage.after} after:`,
    "",
    markdownTable(QUERY_HEADER, queryRows(results)),
  ].join("\n");
}

async function main(): Promise<void> {
  const results = await measureYear();
  console.log(
    `\n${EFFECT_COUNT} Effects: cold build ${seconds(results.coldBuildMs)}, after one new Effect ` +
      `${seconds(results.changedBuildMs)}; index ${results.indexFiles} files, ${kb(results.indexBytes)}; ` +
      `first load of the search ${kb(results.firstLoadBytes)}; load average ${results.loadAverage.before} ` +
      `before, ${results.loadAverage.after} after.\n`,
  );
  console.log(textTable(QUERY_HEADER, queryRows(results)));
  console.log("\nTargets:");
  for (const { target, met, detail } of yearVerdicts(results))
    console.log(`  ${met ? "met   " : "MISSED"}  ${target}: ${detail}`);
  console.log(`\nWrote ${path.relative(ROOT, RESULTS_FILE)}.`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
