/**
 * `npm run bench`: Lighthouse 13 on the landing page, the newest Effect's page and the archive, each
 * beside its no-JavaScript twin (and the ceiling page), the JavaScript a first visit downloads,
 * the first tap on a phone (bench/first-tap.ts), how fast the signup dialog opens once the scripts
 * are in (`npm run bench:dialog`), the signup endpoint under load (`npm run bench:signup`), an
 * Effect sent to 10,000 subscribers (`npm run bench:send`) and to 100,000 the way Supabase sends it
 * (`npm run bench:send-effect-supabase`), `send-effect` over SMTP, Resend and SES on the runtime
 * twin (`npm run bench:send-effect-cpu`), returned mail of hostile shapes (`npm run
 * bench:hostile-mail`), 3,650 Effects built cold and after one new Effect, and
 * searched (`npm run bench:build-year`), a Mailchimp list of 100,000 imported on PGlite
 * (`npm run bench:import`), and the longest main-thread task after the first paint on
 * each kind of page and its twin (bench/long-tasks.ts). Every part that slows the CPU slows it to
 * the same phone, whatever the machine: first the machine's benchmark index is measured and the
 * multiplier calibrated from it (bench/cpu.ts; `npm run bench -- --host-index 1200` runs as a
 * slower host would, `--multiplier M` sets the multiplier), and Chromium runs above the bench's own
 * processes, its page's main thread highest, as a phone runs its foreground page (bench/chromium-priority.ts). Prints the machine it ran on (CPU
 * model, benchmark index, multiplier), the tables, writes bench/results.json and
 * bench/RESULTS.md. Not part of CI: the numbers need a quiet machine.
 * `BENCH_SKIP=tap,dialog,signup,send,supabase,cpu,hostile,year,import` leaves those pieces out (for a quick check of the rest).
 *
 * The run in steps, each in its own module: calibrate the CPU (bench/cpu.ts), measure the pages
 * (bench/measure-pages.ts) and the rest (bench/measure-others.ts), judge them against the
 * targets (bench/judge.ts), report (bench/report.ts).
 */
import os from "node:os";
import { buildSiteIfStale } from "../scripts/site-build";
import { prioritizeChromium } from "./chromium-priority";
import { calibrateCpu } from "./cpu";
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
  // From the index's measurement to the last page: every Chromium the bench starts runs above it.
  const chromium = prioritizeChromium();
  const { cpu, pages, others } = await (async () => {
    try {
      const cpu = await calibrateCpu();
      return { cpu, pages: await measurePages(skip, cpu), others: await measureOthers(skip, cpu) };
    } finally {
      chromium.stop();
    }
  })();
  // Stopped already; a second stop() only reports what was raised.
  const priority = chromium.stop();
  const loadAverageAfter = os.loadavg();
  const results = scriptResults(others);
  const verdicts = judge(pages, others, results, cpu);
  const report = {
    machine: { ...machine, loadAverageAfter },
    cpu,
    priority,
    pages,
    others,
    results,
    verdicts,
  };
  printReport(report);
  writeReport(report);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
