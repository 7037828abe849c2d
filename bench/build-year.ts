/**
 * `npm run bench:build-year`: ten years of daily Effects (3,650) stay fast to build and to search.
 * Writes 3,650 Effects into a folder of its own (bench/.tmp/year-effects, handed to the build as
 * `EFFECTS_DIR`, the way the browser tests hand theirs), builds the site cold into
 * bench/.tmp/year-site (no cache: neither Gatsby's nor the social cards', which it keeps in
 * bench/.tmp/year-cards), adds one new Effect and builds again, and times both builds.
 * Then, in Chromium against that build on the local stack, it searches the archive's index
 * (Pagefind, build/search-index.ts) as the archive's form does: each query in a fresh browser,
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
import { PAGE_SIZE } from "../src/components/effects/search-setup";
import { launchChromium, untilHydrated, VIEWPORTS } from "../test/support/browser";
import { effectTexts } from "../test/support/effects";
import { kb } from "../test/support/first-visit";
import { seededRandom } from "../test/support/seeded-random";
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
  // The same Effects on every run.
  const next = seededRandom(29);
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
  /** Typed, then Enter: from Enter to the answer with ten excerpts, the median of SEARCH_ROUNDS. */
  ms: number;
  /** Pasted, then Enter: the same, with nothing of the index fetched before. */
  pastedMs?: number;
  /** Transferred from the first key (typed), the most of the rounds. */
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
/** No request for this long: the search's first load is over; no change for this long: the answer is final. */
const QUIET_MS = 400;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The statuses the form shows once it has answered `query` (content/effect-pages.yaml), as one
 * pattern, and how many Effects the shown status says were found.
 */
function answeredStatus(query: string): { pattern: RegExp; found(status: string): number } {
  const { oneResultText, resultsText, noResultsText } = effectTexts.archive.search;
  const answer = (template: string) =>
    new RegExp(
      `^${escaped(template)
        .replace(escaped("{count}"), () => "(\\d+)")
        .replace(escaped("{query}"), () => escaped(query))}$`,
    );
  const [one, many, none] = [oneResultText, resultsText, noResultsText].map(answer);
  return {
    pattern: new RegExp([one, many, none].map((each) => `(?:${each.source})`).join("|")),
    found: (status) => (one.test(status) ? 1 : none.test(status) ? 0 : Number(many.exec(status)?.[1] ?? NaN)),
  };
}

/**
 * One query as a reader's first, in a fresh browser context on the archive's real form: the reader
 * focuses the field, which loads the search (its worker, Pagefind's script and WebAssembly, and the
 * warm-up search, src/components/effects/search-worker.ts), waits until nothing more comes, then
 * either types the word, a key every KEY_INTERVAL_MS (each key fetches the part of the index the
 * word needs at once; the search waits for a pause), and presses Enter; or pastes it and presses
 * Enter at once (nothing of the index fetched before). Timed in the page from Enter's keydown to
 * the last change the answer made on the page (the status and the first ten results with their
 * excerpts, drawn together); the bytes counted from the first key.
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
    let lastRequest = performance.now();
    page.on("request", () => (lastRequest = performance.now()));
    page.on("requestfinished", (request) => {
      lastRequest = performance.now();
      void request
        .sizes()
        .then((sizes) =>
          transferred.push({ url: request.url(), bytes: sizes.responseBodySize + sizes.responseHeadersSize }),
        );
    });
    const field = page.getByRole("searchbox", { name: effectTexts.archive.search.label });
    await field.focus();
    // The reader starts once the search's first load is over: no request for QUIET_MS.
    const loadStarted = performance.now();
    while (performance.now() - lastRequest < QUIET_MS || transferred.length === 0) {
      if (performance.now() - loadStarted > 15_000) throw new Error("the search's first load did not settle");
      await page.waitForTimeout(50);
    }
    const firstLoadBytes = transferred.reduce((sum, entry) => sum + entry.bytes, 0);
    transferred.length = 0;
    // Only watches: Enter's time, and the time of the last change under the search form.
    await page.evaluate(() => {
      const times = { enter: 0, last: 0 };
      (window as unknown as { searchTimes: typeof times }).searchTimes = times;
      document.addEventListener(
        "keydown",
        (event) => {
          if (event.key === "Enter") times.enter = performance.now();
        },
        true,
      );
      new MutationObserver(() => {
        if (times.enter) times.last = performance.now();
      }).observe(document.querySelector('form[role="search"]')!.parentElement!, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
    if (typed) {
      await page.keyboard.type(query, { delay: KEY_INTERVAL_MS });
      await page.waitForTimeout(KEY_INTERVAL_MS);
    } else {
      await page.keyboard.insertText(query);
    }
    await page.keyboard.press("Enter");
    const status = page.getByRole("status");
    const statusId = (await status.getAttribute("id"))!;
    const answered = answeredStatus(query);
    await page.waitForFunction(
      ({ source, id }) => new RegExp(source).test(document.getElementById(id)?.textContent ?? ""),
      { source: answered.pattern.source, id: statusId },
      { timeout: 15_000 },
    );
    // Nothing later changes the answer (a stale search would, and would count).
    await page.waitForTimeout(QUIET_MS);
    const times = await page.evaluate(
      () => (window as unknown as { searchTimes: { enter: number; last: number } }).searchTimes,
    );
    const results = answered.found((await status.textContent()) ?? "");
    const shown = await page.locator(`ol[aria-labelledby="${statusId}"] > li`).count();
    if (shown !== Math.min(results, PAGE_SIZE))
      throw new Error(`"${query}": ${shown} results shown for ${results} found`);
    return {
      firstLoadBytes,
      query: {
        query,
        results,
        // No change after Enter: the answer was on the page before it (the search ran in a pause of
        // the typing), and the reader waits for nothing.
        ms: Math.max(0, times.last - times.enter),
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
/** How many times each query is timed, typed and pasted; the bench reports the median. */
const SEARCH_ROUNDS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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
    // Each query ROUNDS times, typed and pasted in turn, the rounds interleaved so that a busy moment
    // of the machine falls on one run of several queries, not on every run of one; the median of each.
    const runs = terms.map(() => ({ typed: [] as QueryResult[], pasted: [] as QueryResult[] }));
    for (let round = 0; round < SEARCH_ROUNDS; round++) {
      for (const [index, query] of terms.entries()) {
        for (const typed of [true, false]) {
          const measured = await measureQuery(browser, front.url, query, typed);
          firstLoadBytes = Math.max(firstLoadBytes, measured.firstLoadBytes);
          runs[index][typed ? "typed" : "pasted"].push(measured.query);
        }
      }
    }
    for (const { typed, pasted } of runs) {
      const heaviest = typed.reduce((most, run) => (run.bytes > most.bytes ? run : most));
      queries.push({
        ...heaviest,
        ms: median(typed.map((run) => run.ms)),
        pastedMs: median(pasted.map((run) => run.ms)),
      });
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
