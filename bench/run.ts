/**
 * `npm run bench`: Lighthouse on the landing page beside its no-JavaScript twin (and the ceiling
 * page and an Effect's page), the JavaScript a first visit downloads, how fast the signup dialog
 * opens (`npm run bench:dialog`), the signup endpoint under load (`npm run bench:signup`) and an
 * Effect sent to 10,000 subscribers (`npm run bench:send`). Prints the tables, writes
 * bench/results.json and bench/RESULTS.md. Not part of CI: the numbers need a quiet machine.
 * `BENCH_SKIP=dialog,signup,send` leaves those pieces out (for a quick check of the rest).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSiteIfStale } from "../scripts/site-build";
import { kb } from "../toolkit/first-visit";
import { ROOT, startStack } from "../toolkit/stack";
import { writeCeilingPage } from "./ceiling-page";
import {
  CPU_SLOWDOWN,
  dialogLatencyLine,
  measureDialogLatencyOnLocalStack,
  TARGET_MEDIAN_MS,
  type DialogLatency,
} from "./dialog-latency";
import { sendSummary } from "./effect-send";
import { CATEGORIES, compare, medians, RUNS, type Run } from "./lighthouse";
import { firstVisitTable, measureFirstVisitJs, type FirstVisitJs } from "./size";
import { markdownTable, textTable } from "./table";
import { writeTwin } from "./twin";

const BENCH = path.join(ROOT, "bench");
/** Issue 9's targets, against the landing page's own twin without scripts (medians). */
const TARGET_LCP_RATIO = 1.15;
const TARGET_TBT_EXTRA_MS = 30;
/** First-visit JavaScript must not grow past what it was when the twin came (issue 9). */
const TARGET_FIRST_VISIT_BYTES = 76_800;

/** The pieces `BENCH_SKIP` (comma-separated) may leave out; Lighthouse and the first visit always run. */
const SKIPPABLE = ["dialog", "signup", "send"] as const;
type Skippable = (typeof SKIPPABLE)[number];

function skipped(): Set<Skippable> {
  const names = (process.env.BENCH_SKIP ?? "")
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

/** The targets, each with whether it is met and, if not, by how much it is missed. */
function targets(landing: Run, twin: Run, firstVisit: FirstVisitJs, dialog: DialogLatency | null): Verdict[] {
  const lcpLimit = twin.lcpMs * TARGET_LCP_RATIO;
  const tbtLimit = twin.tbtMs + TARGET_TBT_EXTRA_MS;
  const over = (value: number, limit: number, unit: (value: number) => string) =>
    value <= limit ? "" : `, ${unit(value - limit)} over`;
  return [
    ...CATEGORIES.map((category) => ({
      target: `Lighthouse ${category} 100`,
      met: landing[category] === 100,
      detail:
        (landing[category] === 100 ? "100" : `${landing[category]} (${100 - landing[category]} short)`) +
        (category === "performance" ? `; the twin ${twin.performance}` : ""),
    })),
    { target: "CLS 0", met: landing.cls === 0, detail: landing.cls.toFixed(3) },
    {
      target: `LCP at most ${TARGET_LCP_RATIO}x the twin's`,
      met: landing.lcpMs <= lcpLimit,
      detail:
        `${ratio(landing.lcpMs, twin.lcpMs)} (${ms(landing.lcpMs)} vs limit ${ms(lcpLimit)})` +
        over(landing.lcpMs, lcpLimit, ms),
    },
    {
      target: `TBT at most the twin's + ${TARGET_TBT_EXTRA_MS} ms`,
      met: landing.tbtMs <= tbtLimit,
      detail:
        `${ms(landing.tbtMs)} vs limit ${ms(tbtLimit)} (the twin ${ms(twin.tbtMs)})` +
        over(landing.tbtMs, tbtLimit, ms),
    },
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
  const effectPath = newestEffectPath();
  let runs: Record<"landing" | "twin" | "ceiling" | "effect", Run[]>;
  try {
    console.log(`Lighthouse, mobile, simulated throttling, ${RUNS} runs each (about ${RUNS * 80} s)...`);
    const measured = await compare(
      [
        { key: "landing", label: "landing", url: `${site.url}/` },
        { key: "twin", label: "twin", url: `${twinSite.url}/` },
        { key: "ceiling", label: "ceiling", url: `${ceilingSite.url}/` },
        ...(effectPath
          ? [{ key: "effect" as const, label: "Effect page", url: `${site.url}${effectPath}` }]
          : []),
      ],
      RUNS,
      (label, run) =>
        console.log(`  ${label}: performance ${run.performance}, LCP ${ms(run.lcpMs)}, TBT ${ms(run.tbtMs)}`),
    );
    // Without a published Effect the loop never ran one.
    runs = { ...measured, effect: measured.effect ?? [] };
  } finally {
    await Promise.all([site.stop(), twinSite.stop(), ceilingSite.stop()]);
    rmSync(ceilingDir, { recursive: true, force: true });
    twin.remove();
  }
  const landing = medians(runs.landing);
  const twinMedian = medians(runs.twin);
  const ceiling = medians(runs.ceiling);
  const effect = runs.effect.length > 0 ? medians(runs.effect) : null;
  const header = [`median of ${RUNS}`, "landing", "twin", "landing / twin", "ceiling", "Effect page"];
  const rows = ROWS.map(([label, key, format]) => [
    label,
    format(landing[key]),
    format(twinMedian[key]),
    ratio(landing[key], twinMedian[key]),
    format(ceiling[key]),
    effect ? format(effect[key]) : "-",
  ]);
  // An Effect's page must score like the landing page: the same four scores, no layout shift.
  const effectVerdicts = effect
    ? [
        ...CATEGORIES.map((category) => ({
          target: `Effect page ${category} at least the landing page's (${landing[category]})`,
          met: effect[category] >= landing[category],
          detail: String(effect[category]),
        })),
        { target: "Effect page CLS 0", met: effect.cls === 0, detail: effect.cls.toFixed(3) },
      ]
    : [];

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
  const loadAfter = os.loadavg();
  const verdicts = [...targets(landing, twinMedian, firstVisit, dialog.result), ...effectVerdicts];

  console.log(`\nLighthouse (median of ${RUNS} runs; twin = the same build without scripts):\n`);
  console.log(textTable(header, rows));
  console.log("\nTargets:");
  for (const { target, met, detail } of verdicts)
    console.log(`  ${met ? "met   " : "MISSED"}  ${target}: ${detail}`);
  if (!dialog.result) console.log(`  -       dialog not measured: ${dialog.error}`);
  console.log("\nJavaScript downloaded by a first visit, gzipped:\n");
  console.log(firstVisitTable(firstVisit));

  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: ROOT,
    encoding: "utf8",
  }).trim();
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
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
      median: { landing, twin: twinMedian, ceiling, effect },
      runs,
    },
    targets: verdicts,
    firstVisitJs: { ...firstVisit, targetBytes: TARGET_FIRST_VISIT_BYTES },
    dialogLatency: dialog.result ?? { notMeasured: dialog.error },
    signupLoad: signup,
    effectSend: send,
  };
  writeFileSync(path.join(BENCH, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  const summary = [
    `Latest run: ${results.date.slice(0, 16).replace("T", " ")} UTC, commit \`${commit}\`, ${machine.cpus} CPUs ` +
      `(${machine.cpuModel}), load average ${machine.loadAverageBefore[0]} before and ${machine.loadAverageAfter[0]} after` +
      (neighbours.length > 0 ? `, with other heavy work running (${neighbours.length} processes)` : "") +
      ". Reproduce with `npm run bench`.",
    "",
    `Lighthouse, mobile emulation, simulated throttling, median of ${RUNS} runs each, alternated, every page served by ` +
      `its own local stack. The twin is the same build with its scripts taken out (${twin.removed} scripts, preloads ` +
      `and handlers from ${twin.htmlFiles} HTML files): the same HTML, CSS, font and hero picture. The ceiling is the ` +
      `same ${ceilingTextChars} characters of text as plain HTML (no JavaScript, CSS, fonts or images). ` +
      (effectPath
        ? `The last column is the newest Effect of the Day's page (\`${effectPath}\`).`
        : "No Effect of the Day was published, so no Effect page was measured."),
    "",
    markdownTable(header, rows),
    "",
    "| target | met | result |",
    "| --- | --- | --- |",
    ...verdicts.map(({ target, met, detail }) => `| ${target} | ${met ? "yes" : "**no**"} | ${detail} |`),
    ...(dialog.result
      ? []
      : [`| Dialog opens within ${TARGET_MEDIAN_MS} ms of a click | - | ${dialog.error} |`]),
    "",
    `JavaScript a first visit downloads (load, a mouse move, scroll to the bottom), gzipped: **${kb(firstVisit.totalGzipBytes)}** ` +
      `(${bytesExact(firstVisit.totalGzipBytes)}; target ${bytesExact(TARGET_FIRST_VISIT_BYTES)}, budget ` +
      `${kb(firstVisit.budgetBytes)}; \`npm run size\` lists it per file).`,
    "",
    dialog.result
      ? `"Join the Movement" to its dialog (\`npm run bench:dialog\`), the landing page in Chromium with the CPU ` +
        `${CPU_SLOWDOWN}x slower, after hydration, from the click event's time stamp to the first frame drawn with the ` +
        `dialog visible: ${dialogLatencyLine(dialog.result)}.`
      : `The dialog's reaction time was not measured: ${dialog.error}.`,
    "",
    signupSummary(signup.ran),
    ...(send.ran ? ["", sendSummary()] : []),
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
