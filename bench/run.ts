/**
 * `npm run bench`: Lighthouse on the landing page, the newest Effect's page and the archive, each
 * beside its no-JavaScript twin (and the ceiling page), the JavaScript a first visit downloads,
 * the first tap on a phone (bench/first-tap.ts), how fast the signup dialog opens once the scripts
 * are in (`npm run bench:dialog`), the signup endpoint under load (`npm run bench:signup`), an
 * Effect sent to 10,000 subscribers (`npm run bench:send`) and to 100,000 the way Supabase sends it
 * (`npm run bench:send-effect-supabase`), `send-effect` over SMTP, Resend and SES on the runtime
 * twin (`npm run bench:send-effect-cpu`), returned mail of hostile shapes (`npm run
 * bench:hostile-mail`), 3,650 Effects built cold and after one new Effect, and
 * searched (`npm run bench:build-year`), and the longest main-thread task after the first paint on
 * each kind of page and its twin with the CPU 4x slower (bench/long-tasks.ts). Prints the machine
 * it ran on (CPU model, Lighthouse's benchmark index), the tables, writes
 * bench/results.json and bench/RESULTS.md. Not part of CI: the numbers need a quiet machine.
 * `BENCH_SKIP=tap,dialog,signup,send,supabase,cpu,hostile,year` leaves those pieces out (for a quick check of the rest).
 *
 * The run in steps, each in its own module: measure the pages (bench/measure-pages.ts) and the
 * rest (bench/measure-others.ts), judge them against the targets (bench/judge.ts), report
 * (bench/report.ts).
 */
import os from "node:os";
import { buildSiteIfStale } from "../scripts/site-build";
import { judge } from "./judge";
import { machineBefore } from "./machine";
import { measureOthers, scriptResults } from "./measure-others";
import { measurePages } from "./measure-pages";
import { skippedPieces } from "./pieces";
import { printReport, writeReport } from "./report";

async function main(): Promise<void> {
  const skip = skippedPieces();
  const machine = machineBefore();
  buildSiteIfStale();
  const pages = await measurePages(skip);
  const others = await measureOthers(skip);
  const loadAverageAfter = os.loadavg();
  const results = scriptResults(others);
  const verdicts = judge(pages, others, results);
  const report = { machine: { ...machine, loadAverageAfter }, pages, others, results, verdicts };
  printReport(report);
  writeReport(report);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
