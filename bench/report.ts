/**
 * `npm run bench`'s report: the tables and the targets in the terminal, every number in
 * bench/results.json, and the tables between the bench markers of bench/RESULTS.md (the text
 * around them is kept as written by hand), laid out as `npm run format` would.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { kb } from "../test/support/first-visit";
import { ROOT } from "../test/support/stack";
import { yearSummary } from "./build-year";
import { priorityLine, type PriorityReport } from "./chromium-priority";
import { busyWarning, cpuLine, TARGET_INDEX, type CpuThrottling } from "./cpu";
import { dialogLatencyLine, TARGET_MEDIAN_MS } from "./dialog-latency";
import { sendSummary } from "./effect-send";
import { PHONE, phoneDescription, tapLine, TAP_RUNS } from "./first-tap";
import { bytesExact, ms, ratio } from "./format";
import { TARGET_FIRST_VISIT_BYTES, type Verdict } from "./judge";
import { CATEGORIES, RUNS, type Run } from "./lighthouse";
import { LONG_TASK_RUNS } from "./long-tasks";
import type { Machine } from "./machine";
import type { OtherMeasures, ScriptResults } from "./measure-others";
import { ARCHIVE_PATH, type PageMeasures } from "./measure-pages";
import { hostileMailSummary } from "./hostile-mail";
import { importSummary } from "./import";
import { sendEffectCpuSummary } from "./send-effect-cpu";
import { supabaseSendSummary } from "./send-effect-supabase";
import { firstVisitTable } from "./size";
import { markdownTable, textTable } from "./table";

export interface Report {
  /** The machine, with its load average after the run. */
  machine: Machine & { loadAverageAfter: number[] };
  /** The one CPU slowdown of the run (bench/cpu.ts). */
  cpu: CpuThrottling;
  /** Whether Chromium ran above the bench's own processes (bench/chromium-priority.ts). */
  priority: PriorityReport;
  pages: PageMeasures;
  others: OtherMeasures;
  results: ScriptResults;
  verdicts: Verdict[];
}

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
  ["total bytes", "totalBytes", kb],
  ["script bytes", "scriptBytes", kb],
];

const HEADER = [
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

/** Each page's Lighthouse numbers, beside its twin's. */
function lighthouseRows({
  landing,
  twin,
  ceiling,
  effect,
  effectTwin,
  archive,
  archiveTwin,
}: PageMeasures["summary"]) {
  return ROWS.map(([label, key, format]) => [
    label,
    format(landing[key]),
    format(twin[key]),
    ratio(landing[key], twin[key]),
    format(ceiling[key]),
    effect ? format(effect[key]) : "-",
    effectTwin ? format(effectTwin[key]) : "-",
    format(archive[key]),
    format(archiveTwin[key]),
  ]);
}

const longTaskHeader = (cpu: CpuThrottling) => [
  `CPU ${cpu.rate}x, median of ${LONG_TASK_RUNS}`,
  ...HEADER.slice(1),
];

/** The benchmark index Lighthouse measured at the start of each of its runs, every page's. */
const lighthouseIndexes = (runs: PageMeasures["runs"]): number[] =>
  Object.values(runs)
    .flat()
    .map((run) => run.benchmarkIndex)
    .filter((index) => index > 0);

/** The Lighthouse that ran (13 and up is what PageSpeed Insights runs). */
const lighthouseVersion = (): string =>
  (
    JSON.parse(readFileSync(path.join(ROOT, "node_modules/lighthouse/package.json"), "utf8")) as {
      version: string;
    }
  ).version;

/** Each page's longest task after the first paint and its blocking time, in the Lighthouse table's columns. */
function longTaskRows(longTasks: PageMeasures["longTasks"]): string[][] {
  const cells = (field: "medianLongestMs" | "medianBlockingMs") =>
    (["landing", "twin", null, "ceiling", "effect", "effectTwin", "archive", "archiveTwin"] as const).map(
      (key) => {
        if (key === null) return "-";
        const summary = longTasks?.[key];
        return summary ? ms(summary[field]) : "-";
      },
    );
  return [
    ["longest task after first paint", ...cells("medianLongestMs")],
    ["blocking time after first paint", ...cells("medianBlockingMs")],
  ];
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
  const results = JSON.parse(readFileSync(path.join(__dirname, "signup-results.json"), "utf8")) as {
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

/** The tables and the targets, in the terminal. */
export function printReport({ cpu, priority, pages, others, verdicts }: Report): void {
  const { summary, longTasks, taps } = pages;
  const { dialog, firstVisit } = others;
  console.log(`\n${cpuLine(cpu)}\n${priorityLine(priority)}`);
  const busy = busyWarning(cpu, lighthouseIndexes(pages.runs));
  if (busy) console.warn(busy);
  console.log(
    `\nLighthouse ${lighthouseVersion()} (CPU ${cpu.multiplier}x, median of ${RUNS} runs, TBT their mean; twin = the same build without scripts):\n`,
  );
  console.log(textTable(HEADER, lighthouseRows(summary)));
  console.log(`\nLong tasks after the first paint (bench/long-tasks.ts):\n`);
  console.log(textTable(longTaskHeader(cpu), longTaskRows(longTasks)));
  console.log("\nTargets:");
  for (const { target, met, detail } of verdicts)
    console.log(`  ${met ? "met   " : "MISSED"}  ${target}: ${detail}`);
  if (!dialog.result) console.log(`  -       dialog not measured: ${dialog.error}`);
  if (taps.length === 0) console.log("  -       first tap not measured: skipped (BENCH_SKIP)");
  for (const tap of taps) console.log(`  tap ${tap.afterLoadMs / 1000} s after load: ${tapLine(tap)}`);
  console.log("\nJavaScript downloaded by a first visit, gzipped:\n");
  console.log(firstVisitTable(firstVisit));
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

/** Every number of the run in bench/results.json, and its tables in bench/RESULTS.md. */
export function writeReport({
  machine: measured,
  cpu,
  priority,
  pages,
  others,
  results: scripts,
  verdicts,
}: Report): void {
  const { twin, ceilingTextChars, effectPath, runs, summary, longTasks, taps } = pages;
  const { firstVisit, dialog, signup, send, supabaseSend, cpuSend, hostileMail, year, importList } = others;
  const { yearResults, supabaseResults, cpuResults, hostileResults, importResults } = scripts;
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: ROOT,
    encoding: "utf8",
  }).trim();
  const benchmarkIndex = summary.landing.benchmarkIndex;
  const neighbours = measured.otherHeavyWork;
  const machine = {
    cpus: measured.cpus,
    cpuModel: measured.cpuModel,
    lighthouseBenchmarkIndex: benchmarkIndex,
    loadAverageBefore: measured.loadAverageBefore.map((value) => Number(value.toFixed(2))),
    loadAverageAfter: measured.loadAverageAfter.map((value) => Number(value.toFixed(2))),
    otherHeavyWork: neighbours,
  };
  const version = lighthouseVersion();
  const busy = busyWarning(cpu, lighthouseIndexes(runs));
  const results = {
    date: new Date().toISOString(),
    commit,
    machine,
    cpu: {
      ...cpu,
      targetIndex: TARGET_INDEX,
      busyDuringRuns: busy,
      chromiumPriority: priority,
      rule: "multiplier = host index / target index (Lighthouse's throttling guide, https://github.com/GoogleChrome/lighthouse/blob/main/docs/throttling.md, 'Calibrating the CPU slowdown'), one decimal, 1 to 20; DevTools throttles at host slowdown x multiplier (bench/cpu.ts)",
    },
    lighthouse: {
      settings: {
        version,
        formFactor: "mobile",
        throttling: `simulated (Lighthouse's defaults but cpuSlowdownMultiplier ${cpu.multiplier})`,
        runs: RUNS,
      },
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
      summary,
      runs,
    },
    longTasks: {
      settings: {
        cpuSlowdown: cpu.rate,
        runs: LONG_TASK_RUNS,
        viewport: "390x844",
        cold: true,
      },
      pages: longTasks,
    },
    targets: verdicts,
    firstVisitJs: { ...firstVisit, targetBytes: TARGET_FIRST_VISIT_BYTES },
    firstTap: { phone: { ...PHONE, cpuSlowdown: cpu.rate }, taps },
    dialogLatency: dialog.result ?? { notMeasured: dialog.error },
    signupLoad: signup,
    effectSend: send,
    supabaseSend: supabaseResults ?? { notMeasured: supabaseSend.output },
    sendEffectCpu: cpuResults ?? { notMeasured: cpuSend.output },
    hostileMail: hostileResults ?? { notMeasured: hostileMail.output },
    yearOfEffects: yearResults ?? { notMeasured: year.output },
    importList: importResults ?? { notMeasured: importList.output },
  };
  writeFileSync(path.join(__dirname, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  const generated = [
    `Latest run: ${results.date.slice(0, 16).replace("T", " ")} UTC, commit \`${commit}\`, ${machine.cpus} CPUs ` +
      `(${machine.cpuModel}, Lighthouse benchmark index ${Math.round(benchmarkIndex)} in its runs), load average ${machine.loadAverageBefore[0]} before and ${machine.loadAverageAfter[0]} after` +
      (neighbours.length > 0 ? `, with other heavy work running (${neighbours.length} processes)` : "") +
      ". Reproduce with `npm run bench`.",
    "",
    `The CPU, the same phone on every machine (bench/cpu.ts): ${cpuLine(cpu)} Every measure below that slows the ` +
      `CPU uses it: Lighthouse's multiplier ${cpu.multiplier}x (host index / ${TARGET_INDEX}, Lighthouse's throttling ` +
      `guide), DevTools throttling at ${cpu.rate}x. ${priorityLine(priority)}` +
      (busy ? ` **${busy}**` : ""),
    "",
    `Lighthouse ${version}, mobile emulation, simulated throttling at CPU ${cpu.multiplier}x, median of ${RUNS} runs each (Total Blocking Time: their ` +
      `mean, as its runs are about 0 or about 70 ms on every page; docs/testing.md), alternated, every page served by ` +
      `its own local stack behind an HTTPS and HTTP/2 front, as the host serves it (one connection for all ` +
      `requests) but without the pages' Cross-Origin-Opener-Policy, whose process swap made the blocking time follow the machine (bench/https-front.ts). The twin is the same build with its scripts taken out (${twin.removed} scripts, preloads ` +
      `and handlers from ${twin.htmlFiles} HTML files): the same HTML, CSS, font and hero picture. The ceiling is the ` +
      `same ${ceilingTextChars} characters of text as plain HTML (no JavaScript, CSS, fonts or images). ` +
      (effectPath
        ? `The Effect page is the newest Effect of the Day's (\`${effectPath}\`); the archive is \`${ARCHIVE_PATH}\`; each beside the same page of the twin.`
        : `No Effect of the Day was published, so no Effect page was measured; the archive is \`${ARCHIVE_PATH}\`.`),
    "",
    markdownTable(HEADER, lighthouseRows(summary)),
    "",
    `The longest main-thread task after the first paint and the blocking time after it (each long task's time ` +
      `over 50 ms), Chromium at 390 px with the CPU ${cpu.rate}x slower, cold, no input, watched until ` +
      `the scripts have started, React has taken the page over and nothing is busy (bench/long-tasks.ts), median of ` +
      `${LONG_TASK_RUNS} interleaved runs:`,
    "",
    markdownTable(longTaskHeader(cpu), longTaskRows(longTasks)),
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
      ? `The first tap on "Join the Movement" on a phone (${phoneDescription(cpu)}; one cold visit per tap, ${TAP_RUNS} per ` +
        `delay), from the tap's \`pointerdown\` to the first frame drawn with the dialog visible: ` +
        taps.map((tap) => `${tap.afterLoadMs / 1000} s after load, ${tapLine(tap)}`).join("; ") +
        "."
      : "The first tap was not measured (BENCH_SKIP).",
    "",
    dialog.result
      ? `"Join the Movement" to its dialog (\`npm run bench:dialog\`), the landing page in Chromium with the CPU ` +
        `${dialog.result.cpuSlowdown}x slower, after hydration, from the click event's time stamp to the first frame drawn with the ` +
        `dialog visible: ${dialogLatencyLine(dialog.result)}.`
      : `The dialog's reaction time was not measured: ${dialog.error}.`,
    "",
    signupSummary(signup.ran),
    ...(send.ran ? ["", sendSummary()] : []),
    ...(supabaseSend.ran ? ["", supabaseSendSummary()] : []),
    ...(cpuSend.ran ? ["", sendEffectCpuSummary()] : []),
    ...(hostileMail.ran ? ["", hostileMailSummary()] : []),
    ...(yearResults ? ["", yearSummary(yearResults)] : []),
    ...(importResults ? ["", importSummary()] : []),
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
    ...(hostileMail.ran ? [] : ["", `Hostile returned mail not measured: ${hostileMail.output}.`]),
    ...(year.ran ? [] : ["", `3,650 Effects not built and searched: ${year.output}.`]),
    ...(importList.ran ? [] : ["", `The import of 100,000 not measured: ${importList.output}.`]),
  ].join("\n");
  replaceGeneratedBlock(path.join(__dirname, "RESULTS.md"), `${generated}\n\n${details}`);
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
