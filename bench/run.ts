/**
 * `npm run bench`: Lighthouse on the landing page, the newest Effect's page and the archive, each
 * beside its no-JavaScript twin (and the ceiling page), the JavaScript a first visit downloads,
 * the first tap on a phone (bench/first-tap.ts), how fast the signup dialog opens once the scripts
 * are in (`npm run bench:dialog`), the signup endpoint under load (`npm run bench:signup`), an
 * Effect sent to 10,000 subscribers (`npm run bench:send`) and to 100,000 the way Supabase sends it
 * (`npm run bench:send-effect-supabase`), `send-effect` over SMTP, Resend and SES on the runtime
 * twin (`npm run bench:send-effect-cpu`), 3,650 Effects built cold and after one new Effect, and
 * searched (`npm run bench:build-year`), and the longest main-thread task after the first paint on
 * each kind of page and its twin with the CPU 4x slower (bench/long-tasks.ts). Prints the machine
 * it ran on (CPU model, Lighthouse's benchmark index), the tables, writes
 * bench/results.json and bench/RESULTS.md. Not part of CI: the numbers need a quiet machine.
 * `BENCH_SKIP=tap,dialog,signup,send,supabase,cpu,year` leaves those pieces out (for a quick check of the rest).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSiteIfStale } from "../scripts/site-build";
import { kb } from "../test/support/first-visit";
import { ROOT, startStack } from "../test/support/stack";
import { writeCeilingPage } from "./ceiling-page";
import { startHttpsFront } from "./https-front";
import {
  CPU_SLOWDOWN,
  dialogLatencyLine,
  measureDialogLatencyOnLocalStack,
  TARGET_MEDIAN_MS,
  type DialogLatency,
} from "./dialog-latency";
import { sendSummary } from "./effect-send";
import { type YearResults, RESULTS_FILE as YEAR_RESULTS_FILE, yearSummary, yearVerdicts } from "./build-year";
import { type SupabaseSendResults, supabaseSendSummary, supabaseSendVerdicts } from "./send-effect-supabase";
import { type SendEffectCpuResults, sendEffectCpuSummary, sendEffectCpuVerdicts } from "./send-effect-cpu";
import { measureFirstTap, PHONE, phoneDescription, tapLine, TAP_RUNS, type TapResult } from "./first-tap";
import { CATEGORIES, compare, RUNS, type MeasuredPage, type Run } from "./lighthouse";
import { summarise } from "./run-summary";
import { firstVisitTable, measureFirstVisitJs, type FirstVisitJs } from "./size";
import {
  LONG_TASK_CPU_SLOWDOWN,
  LONG_TASK_RUNS,
  longTaskLine,
  longTaskVerdict,
  measureLongTasks,
  TARGET_LONG_TASK_EXTRA_MS,
  type LongTaskSummary,
} from "./long-tasks";
import { markdownTable, textTable } from "./table";
import { writeTwin } from "./twin";
import { readVariable } from "../supabase/functions/_shared/contract/variables";

const BENCH = path.join(ROOT, "bench");
/** The archive of the Effects of the Day, built even before the first one. */
const ARCHIVE_PATH = "/effects/";

type PageKey = "landing" | "twin" | "ceiling" | "effect" | "effectTwin" | "archive" | "archiveTwin";
/** Issue 9's targets, against each page's own twin without scripts (medians). */
const TARGET_LCP_RATIO = 1.15;
const TARGET_TBT_EXTRA_MS = 30;
/** Issue 29: the landing page's LCP against the ceiling page's (the same words as plain text). */
const TARGET_CEILING_LCP_RATIO = 1.3;
/** First-visit JavaScript must not grow past what it was when the twin came (issue 9). */
const TARGET_FIRST_VISIT_BYTES = 76_800;

/** The pieces `BENCH_SKIP` (comma-separated) may leave out; Lighthouse and the first visit always run. */
const SKIPPABLE = ["tap", "dialog", "signup", "send", "supabase", "cpu", "year"] as const;
type Skippable = (typeof SKIPPABLE)[number];

function skipped(): Set<Skippable> {
  const names = (readVariable(process.env, "BENCH_SKIP") ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(SKIPPABLE as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_SKIP: unknown ${unknown.join(", ")}; it takes ${SKIPPABLE.join(", ")}`);
  }
  return new Set(names as Skippable[]);
}

/** Other heavy processes on the machine (builds, test runs), which would skew the numbers. */
function heavyNeighbours(): string[] {
  const listing = execFileSync("ps", ["-eo", "pid=,pcpu=,args="], { encoding: "utf8" });
  return listing
    .split("\n")
    .filter((line) => /gatsby (build|develop)|jest|lighthouse|autocannon/.test(line))
    .filter((line) => !line.includes(String(process.pid)) && !/\bps -eo\b/.test(line))
    .map((line) => line.trim().slice(0, 120));
}

const ms = (value: number) => `${Math.round(value)} ms`;
const bytes = (value: number) => kb(value);
const bytesExact = (value: number) => `${value.toLocaleString("en-US")} bytes`;
const ratio = (ours: number, ceiling: number) =>
  ceiling === 0 ? (ours === 0 ? "1.00x" : "n/a") : `${(ours / ceiling).toFixed(2)}x`;

const ROWS: Array<[string, keyof Run, (value: number) => string]> = [
  ...CATEGORIES.map((category): [string, keyof Run, (value: number) => string] => [
    `${category} score`,
    category,
    String,
  ]),
  ["First Contentful Paint", "fcpMs", ms],
  ["Largest Contentful Paint", "lcpMs", ms],
  ["Total Blocking Time", "tbtMs", ms],
  ["Cumulative Layout Shift", "cls", (value) => value.toFixed(3)],
  ["Speed Index", "speedIndexMs", ms],
  ["total bytes", "totalBytes", bytes],
  ["script bytes", "scriptBytes", bytes],
];

interface Verdict {
  target: string;
  met: boolean;
  detail: string;
}

const over = (value: number, limit: number, unit: (value: number) => string) =>
  value <= limit ? "" : `, ${unit(value - limit)} over`;

/** A page's LCP and TBT against its own twin's: what the scripts may add to what the HTML costs. */
function twinBudgets(name: string, page: Run, twin: Run): Verdict[] {
  const lcpLimit = twin.lcpMs * TARGET_LCP_RATIO;
  const tbtLimit = twin.tbtMs + TARGET_TBT_EXTRA_MS;
  return [
    {
      target: `${name}: LCP at most ${TARGET_LCP_RATIO}x its twin's`,
      met: page.lcpMs <= lcpLimit,
      detail:
        `${ratio(page.lcpMs, twin.lcpMs)} (${ms(page.lcpMs)} vs limit ${ms(lcpLimit)})` +
        over(page.lcpMs, lcpLimit, ms),
    },
    {
      target: `${name}: TBT at most its twin's + ${TARGET_TBT_EXTRA_MS} ms (the means of ${RUNS} runs)`,
      met: page.tbtMs <= tbtLimit,
      detail:
        `${ms(page.tbtMs)} vs limit ${ms(tbtLimit)} (the twin ${ms(twin.tbtMs)})` +
        over(page.tbtMs, tbtLimit, ms),
    },
  ];
}

const tapVerdicts = (taps: TapResult[]): Verdict[] =>
  taps.map((tap) => ({
    target: `Dialog within ${tap.targetMs} ms of a tap ${tap.afterLoadMs / 1000} s after load (phone, median of ${tap.latenciesMs.length})`,
    met: tap.medianMs <= tap.targetMs,
    detail: `${ms(tap.medianMs)}, max ${ms(tap.maxMs)}` + over(tap.medianMs, tap.targetMs, ms),
  }));

/** The targets, each with whether it is met and, if not, by how much it is missed. */
function targets(landing: Run, twin: Run, firstVisit: FirstVisitJs, dialog: DialogLatency | null): Verdict[] {
  return [
    ...CATEGORIES.map((category) => ({
      target: `Lighthouse ${category} 100`,
      met: landing[category] === 100,
      detail:
        (landing[category] === 100 ? "100" : `${landing[category]} (${100 - landing[category]} short)`) +
        (category === "performance" ? `; the twin ${twin.performance}` : ""),
    })),
    { target: "CLS 0", met: landing.cls === 0, detail: landing.cls.toFixed(3) },
    ...twinBudgets("Landing page", landing, twin),
    {
      target: `First-visit JavaScript at most ${kb(TARGET_FIRST_VISIT_BYTES)} gzipped (${bytesExact(TARGET_FIRST_VISIT_BYTES)})`,
      met: firstVisit.totalGzipBytes <= TARGET_FIRST_VISIT_BYTES,
      detail:
        `${kb(firstVisit.totalGzipBytes)} (${bytesExact(firstVisit.totalGzipBytes)})` +
        over(firstVisit.totalGzipBytes, TARGET_FIRST_VISIT_BYTES, bytesExact),
    },
    ...(dialog
      ? [
          {
            target: `Dialog opens within ${TARGET_MEDIAN_MS} ms of a click (median, CPU ${CPU_SLOWDOWN}x slower)`,
            met: dialog.medianMs <= TARGET_MEDIAN_MS,
            detail:
              `${ms(dialog.medianMs)}, max ${ms(dialog.maxMs)}` + over(dialog.medianMs, TARGET_MEDIAN_MS, ms),
          },
        ]
      : []),
  ];
}

/** The dialog's reaction time, in this process; a failure is reported and fails the run as a whole. */
async function dialogBench(): Promise<{ result: DialogLatency | null; error?: string }> {
  console.log(`\nThe signup dialog's reaction time (npm run bench:dialog)...`);
  try {
    const result = await measureDialogLatencyOnLocalStack();
    console.log(`  ${dialogLatencyLine(result)}`);
    return { result };
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
    return { result: null, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A benchmark with its own script (`npm run bench:signup`, `bench:send`), in its own processes. */
function benchScript(script: string, title: string): { ran: boolean; output: string } {
  console.log(`\n${title} (npm run ${script})...`);
  const result = spawnSync("npm", ["run", "--silent", script], { cwd: ROOT, encoding: "utf8" });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  if (result.status !== 0) {
    // The other results still get written; the run as a whole fails.
    process.exitCode = 1;
    return {
      ran: false,
      output: `npm run ${script} failed (exit ${result.status}): ${result.stderr.trim().slice(-500)}`,
    };
  }
  return { ran: true, output: result.stdout };
}

interface SignupScenario {
  name: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  acceptedSignups?: number;
  mailsWritten?: number;
  ratioToBare?: number;
}

/** The signup load table from bench/signup-results.json, which `npm run bench:signup` writes. */
function signupSummary(ran: boolean): string {
  if (!ran) return "";
  const results = JSON.parse(readFileSync(path.join(BENCH, "signup-results.json"), "utf8")) as {
    connections: number;
    seconds: number;
    scenarios: SignupScenario[];
  };
  return [
    `Signup endpoint (\`POST /functions/v1/send-confirmation\`, a new address each time, mail to the outbox) under ` +
      `${results.connections} connections for ${results.seconds} s, beside a bare Node \`http\` server answering 200:`,
    "",
    markdownTable(
      ["server", "req/s", "p50", "p99", "non-2xx", "mails / accepted signups", "vs bare"],
      results.scenarios.map((scenario) => [
        scenario.name,
        String(scenario.rps),
        `${scenario.p50Ms} ms`,
        `${scenario.p99Ms} ms`,
        String(scenario.non2xx),
        scenario.mailsWritten === undefined ? "-" : `${scenario.mailsWritten} / ${scenario.acceptedSignups}`,
        `${((scenario.ratioToBare ?? 0) * 100).toFixed(1)}%`,
      ]),
    ),
  ].join("\n");
}

const BEGIN = "<!-- bench:begin (written by npm run bench) -->";
const END = "<!-- bench:end -->";

/** Replaces the text between the bench markers in `file`, keeping everything around it by hand. */
function replaceGeneratedBlock(file: string, generated: string): void {
  const text = readFileSync(file, "utf8");
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin === -1 || end < begin) throw new Error(`${file} has no ${BEGIN} ... ${END} block`);
  writeFileSync(file, `${text.slice(0, begin + BEGIN.length)}\n${generated}\n${text.slice(end)}`);
}

/** The newest Effect the build published (its feed's first item), or null before the first one. */
function newestEffectPath(): string | null {
  const feed = JSON.parse(readFileSync(path.join(ROOT, "public", "effects", "feed.json"), "utf8")) as {
    items: Array<{ url: string }>;
  };
  return feed.items[0] ? new URL(feed.items[0].url).pathname : null;
}

/** A piece `BENCH_SKIP` left out, recorded as such. */
const skippedScript = (script: string) => ({
  ran: false,
  output: `skipped (BENCH_SKIP), run \`npm run ${script}\``,
});

async function main(): Promise<void> {
  const skip = skipped();
  const neighbours = heavyNeighbours();
  if (neighbours.length > 0) {
    console.warn(`Other heavy work is running; the numbers will be noisy:\n  ${neighbours.join("\n  ")}`);
  }
  const loadBefore = os.loadavg();
  const cpuModel = os.cpus()[0]?.model ?? "unknown";
  console.log(`Machine: ${os.cpus().length} CPUs (${cpuModel}), load average ${loadBefore[0].toFixed(2)}.`);
  buildSiteIfStale();

  const ceilingDir = path.join(BENCH, ".tmp", "ceiling");
  const ceilingTextChars = writeCeilingPage(ceilingDir);
  const twin = writeTwin(path.join(ROOT, "public"), path.join(BENCH, ".tmp", "twin"));
  console.log(
    `The twin: ${twin.removed} scripts, preloads and handlers taken out of ${twin.htmlFiles} HTML files.`,
  );
  // Every page is served by the local stack's own code (and headers), so the pages alone differ.
  const [site, twinSite, ceilingSite] = await Promise.all([
    startStack(),
    startStack({ PUBLIC_DIR: twin.dir }),
    startStack({ PUBLIC_DIR: ceilingDir }),
  ]);
  // Lighthouse loads each page as the host serves it, over HTTPS and HTTP/2 (bench/https-front.ts).
  const [front, twinFront, ceilingFront] = await Promise.all(
    [site, twinSite, ceilingSite].map((stack) => startHttpsFront(stack.url)),
  );
  const effectPath = newestEffectPath();
  let runs: Record<PageKey, Run[]>;
  let taps: TapResult[] = [];
  let longTasks: Record<PageKey, LongTaskSummary> | null = null;
  try {
    // Each of the site's kinds of page, and the same page of the twin: over HTTPS for Lighthouse,
    // straight from the stacks for the long tasks (no network simulated there).
    const pagesOn = (landing: string, twin: string, ceiling: string): Array<MeasuredPage<PageKey>> => [
      { key: "landing", label: "landing", url: `${landing}/` },
      { key: "twin", label: "twin", url: `${twin}/` },
      { key: "ceiling", label: "ceiling", url: `${ceiling}/` },
      { key: "archive", label: "archive", url: `${landing}${ARCHIVE_PATH}` },
      { key: "archiveTwin", label: "archive's twin", url: `${twin}${ARCHIVE_PATH}` },
      ...(effectPath
        ? [
            { key: "effect" as const, label: "Effect page", url: `${landing}${effectPath}` },
            { key: "effectTwin" as const, label: "Effect page's twin", url: `${twin}${effectPath}` },
          ]
        : []),
    ];
    const pages = pagesOn(front.url, twinFront.url, ceilingFront.url);
    console.log(
      `Lighthouse, mobile, simulated throttling, over HTTPS and HTTP/2, ${RUNS} runs each (about ${Math.round((RUNS * pages.length * 16) / 60)} min)...`,
    );
    const measured = await compare(pages, RUNS, (label, run) =>
      console.log(`  ${label}: performance ${run.performance}, LCP ${ms(run.lcpMs)}, TBT ${ms(run.tbtMs)}`),
    );
    // Without a published Effect the loop never ran one.
    runs = { ...measured, effect: measured.effect ?? [], effectTwin: measured.effectTwin ?? [] };
    const benchmarkIndexes = Object.values(measured).flatMap((pageRuns) =>
      pageRuns.map((run) => run.benchmarkIndex),
    );
    console.log(
      `Lighthouse's benchmark index: median ${Math.round(summarise(runs.landing).benchmarkIndex)} ` +
        `(${Math.round(Math.min(...benchmarkIndexes))}-${Math.round(Math.max(...benchmarkIndexes))}).`,
    );
    const longTaskPages = pagesOn(site.url, twinSite.url, ceilingSite.url).filter(
      (page) => page.key !== "ceiling",
    );
    console.log(
      `\nThe longest task after the first paint, CPU ${LONG_TASK_CPU_SLOWDOWN}x slower, cold, no input, ` +
        `${LONG_TASK_RUNS} runs each (bench/long-tasks.ts)...`,
    );
    longTasks = (await measureLongTasks(longTaskPages, LONG_TASK_RUNS, (label, run) =>
      console.log(`  ${label}: ${longTaskLine(run)}`),
    )) as Record<PageKey, LongTaskSummary>;
    if (!skip.has("tap")) {
      console.log(`\nThe first tap on a phone (${phoneDescription()}), ${TAP_RUNS} cold visits per delay...`);
      taps = await measureFirstTap([{ label: "landing", url: `${site.url}/` }], TAP_RUNS, (line) =>
        console.log(`  ${line}`),
      );
    }
  } finally {
    await Promise.all([front.stop(), twinFront.stop(), ceilingFront.stop()]);
    await Promise.all([site.stop(), twinSite.stop(), ceilingSite.stop()]);
    rmSync(ceilingDir, { recursive: true, force: true });
    twin.remove();
  }
  const landing = summarise(runs.landing);
  const twinSummary = summarise(runs.twin);
  const ceiling = summarise(runs.ceiling);
  const effect = runs.effect.length > 0 ? summarise(runs.effect) : null;
  const effectTwin = runs.effectTwin.length > 0 ? summarise(runs.effectTwin) : null;
  const archive = summarise(runs.archive);
  const archiveTwin = summarise(runs.archiveTwin);
  const header = [
    `median of ${RUNS}, TBT the mean`,
    "landing",
    "twin",
    "landing / twin",
    "ceiling",
    "Effect page",
    "its twin",
    "archive",
    "its twin",
  ];
  const rows = ROWS.map(([label, key, format]) => [
    label,
    format(landing[key]),
    format(twinSummary[key]),
    ratio(landing[key], twinSummary[key]),
    format(ceiling[key]),
    effect ? format(effect[key]) : "-",
    effectTwin ? format(effectTwin[key]) : "-",
    format(archive[key]),
    format(archiveTwin[key]),
  ]);
  // An Effect's page and the archive must score like the landing page (the same four scores, no
  // layout shift) and keep the same budgets against their own twins.
  const likeTheLanding = (name: string, page: Run, twin: Run): Verdict[] => [
    ...CATEGORIES.map((category) => ({
      target: `${name} ${category} at least the landing page's (${landing[category]})`,
      met: page[category] >= landing[category],
      detail: String(page[category]),
    })),
    { target: `${name} CLS 0`, met: page.cls === 0, detail: page.cls.toFixed(3) },
    ...twinBudgets(name, page, twin),
  ];
  const pageVerdicts = [
    ...(effect && effectTwin ? likeTheLanding("Effect page", effect, effectTwin) : []),
    ...likeTheLanding("Archive", archive, archiveTwin),
    ...[effect ? (["Effect page", effect] as const) : null, ["Archive", archive] as const]
      .filter((entry) => entry !== null)
      .map(([name, page]) => ({
        target: `${name} performance 100`,
        met: page.performance === 100,
        detail: String(page.performance),
      })),
  ];
  // Issue 29: what a visitor's first tap could wait behind once the page shows, and how near the
  // landing page's largest paint is to that of its words alone.
  const ceilingLimit = ceiling.lcpMs * TARGET_CEILING_LCP_RATIO;
  const issue29Verdicts: Verdict[] = [
    {
      target: `Landing page: LCP at most ${TARGET_CEILING_LCP_RATIO}x the text ceiling's`,
      met: landing.lcpMs <= ceilingLimit,
      detail:
        `${ratio(landing.lcpMs, ceiling.lcpMs)} (${ms(landing.lcpMs)} vs limit ${ms(ceilingLimit)})` +
        over(landing.lcpMs, ceilingLimit, ms),
    },
    ...(longTasks
      ? (
          [
            ["Landing page", "landing", "twin"],
            ["Effect page", "effect", "effectTwin"],
            ["Archive", "archive", "archiveTwin"],
          ] as Array<[string, PageKey, PageKey]>
        )
          .filter(([, key]) => longTasks?.[key] !== undefined)
          .map(([name, key, twinKey]) => {
            const verdict = longTaskVerdict(
              longTasks![key].medianLongestMs,
              longTasks![twinKey].medianLongestMs,
            );
            return {
              target:
                `${name}: longest task after the first paint (CPU ${LONG_TASK_CPU_SLOWDOWN}x, median of ` +
                `${LONG_TASK_RUNS}) at most its twin's + ${TARGET_LONG_TASK_EXTRA_MS} ms`,
              met: verdict.met,
              detail: verdict.detail,
            };
          })
      : []),
  ];

  const firstVisit = await measureFirstVisitJs();
  const dialog = skip.has("dialog")
    ? { result: null, error: "skipped (BENCH_SKIP), run `npm run bench:dialog`" }
    : await dialogBench();
  const signup = skip.has("signup")
    ? skippedScript("bench:signup")
    : benchScript("bench:signup", "Signup endpoint under load");
  const send = skip.has("send")
    ? skippedScript("bench:send")
    : benchScript("bench:send", "The Effect of the Day to 10,000 subscribers");
  const supabaseSend = skip.has("supabase")
    ? skippedScript("bench:send-effect-supabase")
    : benchScript("bench:send-effect-supabase", "The Effect to 100,000 subscribers as Supabase sends it");
  const cpuSend = skip.has("cpu")
    ? skippedScript("bench:send-effect-cpu")
    : benchScript("bench:send-effect-cpu", "send-effect over SMTP, Resend and SES on the runtime twin");
  const year = skip.has("year")
    ? skippedScript("bench:build-year")
    : benchScript("bench:build-year", "3,650 Effects built and searched");
  const loadAfter = os.loadavg();
  const yearResults = year.ran ? (JSON.parse(readFileSync(YEAR_RESULTS_FILE, "utf8")) as YearResults) : null;
  const supabaseResults = supabaseSend.ran
    ? (JSON.parse(
        readFileSync(path.join(BENCH, "supabase-send-results.json"), "utf8"),
      ) as SupabaseSendResults)
    : null;
  const cpuResults = cpuSend.ran
    ? (JSON.parse(
        readFileSync(path.join(BENCH, "send-effect-cpu-results.json"), "utf8"),
      ) as SendEffectCpuResults)
    : null;
  const verdicts = [
    ...targets(landing, twinSummary, firstVisit, dialog.result),
    ...tapVerdicts(taps),
    ...pageVerdicts,
    ...issue29Verdicts,
    ...(supabaseResults ? supabaseSendVerdicts(supabaseResults) : []),
    ...(cpuResults ? sendEffectCpuVerdicts(cpuResults) : []),
    ...(yearResults ? yearVerdicts(yearResults) : []),
  ];

  console.log(
    `\nLighthouse (median of ${RUNS} runs, TBT their mean; twin = the same build without scripts):\n`,
  );
  console.log(textTable(header, rows));
  const longTaskHeader = [`CPU ${LONG_TASK_CPU_SLOWDOWN}x, median of ${LONG_TASK_RUNS}`, ...header.slice(1)];
  const longTaskCells = (field: "medianLongestMs" | "medianBlockingMs") =>
    (["landing", "twin", null, "ceiling", "effect", "effectTwin", "archive", "archiveTwin"] as const).map(
      (key) => {
        if (key === null) return "-";
        const summary = longTasks?.[key];
        return summary ? ms(summary[field]) : "-";
      },
    );
  const longTaskTable = [
    ["longest task after first paint", ...longTaskCells("medianLongestMs")],
    ["blocking time after first paint", ...longTaskCells("medianBlockingMs")],
  ];
  console.log(`\nLong tasks after the first paint (bench/long-tasks.ts):\n`);
  console.log(textTable(longTaskHeader, longTaskTable));
  console.log("\nTargets:");
  for (const { target, met, detail } of verdicts)
    console.log(`  ${met ? "met   " : "MISSED"}  ${target}: ${detail}`);
  if (!dialog.result) console.log(`  -       dialog not measured: ${dialog.error}`);
  if (taps.length === 0) console.log("  -       first tap not measured: skipped (BENCH_SKIP)");
  for (const tap of taps) console.log(`  tap ${tap.afterLoadMs / 1000} s after load: ${tapLine(tap)}`);
  console.log("\nJavaScript downloaded by a first visit, gzipped:\n");
  console.log(firstVisitTable(firstVisit));

  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: ROOT,
    encoding: "utf8",
  }).trim();
  const benchmarkIndex = landing.benchmarkIndex;
  const machine = {
    cpus: os.cpus().length,
    cpuModel,
    lighthouseBenchmarkIndex: benchmarkIndex,
    loadAverageBefore: loadBefore.map((value) => Number(value.toFixed(2))),
    loadAverageAfter: loadAfter.map((value) => Number(value.toFixed(2))),
    otherHeavyWork: neighbours,
  };
  const results = {
    date: new Date().toISOString(),
    commit,
    machine,
    lighthouse: {
      settings: { formFactor: "mobile", throttling: "simulated (Lighthouse defaults)", runs: RUNS },
      twinPage: {
        htmlFiles: twin.htmlFiles,
        removed: twin.removed,
        description:
          "public/ copied, every script, gatsby-scripts template, script preload and inline event handler taken out of every HTML file; nothing else changed",
      },
      ceilingPage: {
        textCharacters: ceilingTextChars,
        description: "the landing page's words as plain HTML, no JS, CSS, fonts or images",
      },
      effectPage: effectPath,
      // The median of each number, but TBT: the mean of the runs (MEAN_METRICS in bench/run-summary.ts).
      summary: { landing, twin: twinSummary, ceiling, effect, effectTwin, archive, archiveTwin },
      runs,
    },
    longTasks: {
      settings: {
        cpuSlowdown: LONG_TASK_CPU_SLOWDOWN,
        runs: LONG_TASK_RUNS,
        viewport: "390x844",
        cold: true,
      },
      pages: longTasks,
    },
    targets: verdicts,
    firstVisitJs: { ...firstVisit, targetBytes: TARGET_FIRST_VISIT_BYTES },
    firstTap: { phone: PHONE, taps },
    dialogLatency: dialog.result ?? { notMeasured: dialog.error },
    signupLoad: signup,
    effectSend: send,
    supabaseSend: supabaseResults ?? { notMeasured: supabaseSend.output },
    sendEffectCpu: cpuResults ?? { notMeasured: cpuSend.output },
    yearOfEffects: yearResults ?? { notMeasured: year.output },
  };
  writeFileSync(path.join(BENCH, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  const summary = [
    `Latest run: ${results.date.slice(0, 16).replace("T", " ")} UTC, commit \`${commit}\`, ${machine.cpus} CPUs ` +
      `(${machine.cpuModel}, Lighthouse benchmark index ${Math.round(benchmarkIndex)}), load average ${machine.loadAverageBefore[0]} before and ${machine.loadAverageAfter[0]} after` +
      (neighbours.length > 0 ? `, with other heavy work running (${neighbours.length} processes)` : "") +
      ". Reproduce with `npm run bench`.",
    "",
    `Lighthouse, mobile emulation, simulated throttling, median of ${RUNS} runs each (Total Blocking Time: their ` +
      `mean, as its runs are about 0 or about 70 ms on every page; docs/testing.md), alternated, every page served by ` +
      `its own local stack behind an HTTPS and HTTP/2 front, as the host serves it (one connection for all ` +
      `requests; bench/https-front.ts). The twin is the same build with its scripts taken out (${twin.removed} scripts, preloads ` +
      `and handlers from ${twin.htmlFiles} HTML files): the same HTML, CSS, font and hero picture. The ceiling is the ` +
      `same ${ceilingTextChars} characters of text as plain HTML (no JavaScript, CSS, fonts or images). ` +
      (effectPath
        ? `The Effect page is the newest Effect of the Day's (\`${effectPath}\`); the archive is \`${ARCHIVE_PATH}\`; each beside the same page of the twin.`
        : `No Effect of the Day was published, so no Effect page was measured; the archive is \`${ARCHIVE_PATH}\`.`),
    "",
    markdownTable(header, rows),
    "",
    `The longest main-thread task after the first paint and the blocking time after it (each long task's time ` +
      `over 50 ms), Chromium at 390 px with the CPU ${LONG_TASK_CPU_SLOWDOWN}x slower, cold, no input, watched until ` +
      `the scripts have started, React has taken the page over and nothing is busy (bench/long-tasks.ts), median of ` +
      `${LONG_TASK_RUNS} interleaved runs:`,
    "",
    markdownTable(longTaskHeader, longTaskTable),
    "",
    "| target | met | result |",
    "| --- | --- | --- |",
    ...verdicts.map(({ target, met, detail }) => `| ${target} | ${met ? "yes" : "**no**"} | ${detail} |`),
    ...(dialog.result
      ? []
      : [`| Dialog opens within ${TARGET_MEDIAN_MS} ms of a click | - | ${dialog.error} |`]),
    "",
    `JavaScript a first visit downloads (load, the scripts that follow by themselves, scroll to the bottom), gzipped: **${kb(firstVisit.totalGzipBytes)}** ` +
      `(${bytesExact(firstVisit.totalGzipBytes)}; target ${bytesExact(TARGET_FIRST_VISIT_BYTES)}, budget ` +
      `${kb(firstVisit.budgetBytes)}; \`npm run size\` lists it per file).`,
    "",
    taps.length > 0
      ? `The first tap on "Join the Movement" on a phone (${phoneDescription()}; one cold visit per tap, ${TAP_RUNS} per ` +
        `delay), from the tap's \`pointerdown\` to the first frame drawn with the dialog visible: ` +
        taps.map((tap) => `${tap.afterLoadMs / 1000} s after load, ${tapLine(tap)}`).join("; ") +
        "."
      : "The first tap was not measured (BENCH_SKIP).",
    "",
    dialog.result
      ? `"Join the Movement" to its dialog (\`npm run bench:dialog\`), the landing page in Chromium with the CPU ` +
        `${CPU_SLOWDOWN}x slower, after hydration, from the click event's time stamp to the first frame drawn with the ` +
        `dialog visible: ${dialogLatencyLine(dialog.result)}.`
      : `The dialog's reaction time was not measured: ${dialog.error}.`,
    "",
    signupSummary(signup.ran),
    ...(send.ran ? ["", sendSummary()] : []),
    ...(supabaseSend.ran ? ["", supabaseSendSummary()] : []),
    ...(cpuSend.ran ? ["", sendEffectCpuSummary()] : []),
    ...(yearResults ? ["", yearSummary(yearResults)] : []),
  ].join("\n");
  const details = [
    "### JavaScript a first visit downloads, per file",
    "",
    markdownTable(
      ["file", "gzipped"],
      [
        ...firstVisit.files.map((file) => [`\`${file.file}\``, kb(file.gzipBytes)]),
        ["**total**", `**${kb(firstVisit.totalGzipBytes)}**`],
      ],
    ),
    ...(signup.ran ? [] : ["", `Signup endpoint not measured: ${signup.output}.`]),
    ...(send.ran ? [] : ["", `Effect sending not measured: ${send.output}.`]),
    ...(supabaseSend.ran ? [] : ["", `Sending on Supabase's rules not measured: ${supabaseSend.output}.`]),
    ...(cpuSend.ran ? [] : ["", `send-effect on the runtime twin not measured: ${cpuSend.output}.`]),
    ...(year.ran ? [] : ["", `3,650 Effects not built and searched: ${year.output}.`]),
  ].join("\n");
  replaceGeneratedBlock(path.join(BENCH, "RESULTS.md"), `${summary}\n\n${details}`);
  // Laid out as `npm run format` would, so the check in `npm test` stays green after a bench run.
  execFileSync(
    path.join(ROOT, "node_modules/.bin/prettier"),
    ["--write", "--log-level", "warn", "bench/RESULTS.md"],
    {
      cwd: ROOT,
    },
  );
  console.log("\nWrote bench/results.json and the tables in bench/RESULTS.md.");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
