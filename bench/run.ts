/**
 * `npm run bench`: Lighthouse on the landing page beside the ceiling page, the JavaScript a first
 * visit downloads, and the signup endpoint under load (`npm run bench:signup`). Prints the tables,
 * writes bench/results.json and bench/RESULTS.md. Not part of CI: the numbers need a quiet machine.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSiteIfStale } from "../scripts/site-build";
import { kb } from "../toolkit/first-visit";
import { ROOT, startStack } from "../toolkit/stack";
import { writeCeilingPage } from "./ceiling-page";
import { sendSummary } from "./effect-send";
import { CATEGORIES, compare, medians, RUNS, type Run } from "./lighthouse";
import { firstVisitTable, measureFirstVisitJs } from "./size";
import { markdownTable, textTable } from "./table";

const BENCH = path.join(ROOT, "bench");
const TARGET_LCP_RATIO = 1.6;
const TARGET_TBT_MS = 50;

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

/** The targets, each with whether it is met and, if not, by how much it is missed. */
function targets(ours: Run, ceiling: Run): Array<{ target: string; met: boolean; detail: string }> {
  const lcpLimit = ceiling.lcpMs * TARGET_LCP_RATIO;
  return [
    ...CATEGORIES.map((category) => ({
      target: `Lighthouse ${category} 100`,
      met: ours[category] === 100,
      detail: ours[category] === 100 ? "100" : `${ours[category]} (${100 - ours[category]} short)`,
    })),
    { target: "CLS 0", met: ours.cls === 0, detail: ours.cls.toFixed(3) },
    {
      target: `TBT under ${TARGET_TBT_MS} ms`,
      met: ours.tbtMs < TARGET_TBT_MS,
      detail:
        ours.tbtMs < TARGET_TBT_MS
          ? ms(ours.tbtMs)
          : `${ms(ours.tbtMs)} (${ms(ours.tbtMs - TARGET_TBT_MS)} over)`,
    },
    {
      target: `LCP at most ${TARGET_LCP_RATIO}x the ceiling's`,
      met: ours.lcpMs <= lcpLimit,
      detail:
        `${ratio(ours.lcpMs, ceiling.lcpMs)} (${ms(ours.lcpMs)} vs limit ${ms(lcpLimit)})` +
        (ours.lcpMs <= lcpLimit ? "" : `, ${ms(ours.lcpMs - lcpLimit)} over`),
    },
  ];
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

async function main(): Promise<void> {
  const neighbours = heavyNeighbours();
  if (neighbours.length > 0) {
    console.warn(`Other heavy work is running; the numbers will be noisy:\n  ${neighbours.join("\n  ")}`);
  }
  const loadBefore = os.loadavg();
  buildSiteIfStale();

  const ceilingDir = path.join(BENCH, ".tmp", "ceiling");
  const ceilingTextChars = writeCeilingPage(ceilingDir);
  // Both pages are served by the local stack's own code, so the ratio measures the page alone.
  const [site, ceilingSite] = await Promise.all([startStack(), startStack({ PUBLIC_DIR: ceilingDir })]);
  const effectPath = newestEffectPath();
  let runs: { ours: Run[]; ceiling: Run[]; effect: Run[] };
  try {
    console.log(`Lighthouse, mobile, simulated throttling, ${RUNS} runs each (about ${RUNS * 60} s)...`);
    runs = await compare(
      `${site.url}/`,
      `${ceilingSite.url}/`,
      RUNS,
      (label, run) =>
        console.log(`  ${label}: performance ${run.performance}, LCP ${ms(run.lcpMs)}, TBT ${ms(run.tbtMs)}`),
      effectPath ? `${site.url}${effectPath}` : undefined,
    );
  } finally {
    await Promise.all([site.stop(), ceilingSite.stop()]);
    rmSync(ceilingDir, { recursive: true, force: true });
  }
  const ours = medians(runs.ours);
  const ceiling = medians(runs.ceiling);
  const effect = runs.effect.length > 0 ? medians(runs.effect) : null;
  const header = [`median of ${RUNS}`, "ours", "ceiling", "ours / ceiling", "Effect page"];
  const rows = ROWS.map(([label, key, format]) => [
    label,
    format(ours[key]),
    format(ceiling[key]),
    ratio(ours[key], ceiling[key]),
    effect ? format(effect[key]) : "-",
  ]);
  const verdicts = targets(ours, ceiling);
  // An Effect's page must score like the landing page: the same four scores, no layout shift.
  const effectVerdicts = effect
    ? [
        ...CATEGORIES.map((category) => ({
          target: `Effect page ${category} at least the landing page's (${ours[category]})`,
          met: effect[category] >= ours[category],
          detail: String(effect[category]),
        })),
        { target: "Effect page CLS 0", met: effect.cls === 0, detail: effect.cls.toFixed(3) },
      ]
    : [];

  const firstVisit = await measureFirstVisitJs();
  const signup = benchScript("bench:signup", "Signup endpoint under load");
  const send = benchScript("bench:send", "The Effect of the Day to 10,000 subscribers");
  const loadAfter = os.loadavg();

  console.log(`\nLighthouse (median of ${RUNS} runs; ceiling = the same words as plain HTML):\n`);
  console.log(textTable(header, rows));
  console.log("\nTargets:");
  for (const { target, met, detail } of [...verdicts, ...effectVerdicts])
    console.log(`  ${met ? "met   " : "MISSED"}  ${target}: ${detail}`);
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
      ceilingPage: {
        textCharacters: ceilingTextChars,
        description: "the landing page's words as plain HTML, no JS, CSS, fonts or images",
      },
      effectPage: effectPath,
      median: { ours, ceiling, effect },
      runs,
      targets: [...verdicts, ...effectVerdicts],
    },
    firstVisitJs: firstVisit,
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
    `Lighthouse, mobile emulation, simulated throttling, median of ${RUNS} runs each, alternated. The ceiling is the ` +
      `same ${ceilingTextChars} characters of text as plain HTML (no JavaScript, CSS, fonts or images), served by the same local stack. ` +
      (effectPath
        ? `The last column is the newest Effect of the Day's page (\`${effectPath}\`).`
        : "No Effect of the Day was published, so no Effect page was measured."),
    "",
    markdownTable(header, rows),
    "",
    "| target | met | result |",
    "| --- | --- | --- |",
    ...[...verdicts, ...effectVerdicts].map(
      ({ target, met, detail }) => `| ${target} | ${met ? "yes" : "**no**"} | ${detail} |`,
    ),
    "",
    `JavaScript a first visit downloads (load, scroll to the bottom), gzipped: **${kb(firstVisit.totalGzipBytes)}** ` +
      `of a ${kb(firstVisit.budgetBytes)} budget (\`npm run size\` lists it per file).`,
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
