/**
 * What `npm run bench` measures after the pages: the JavaScript a first visit downloads
 * (bench/size.ts), the signup dialog's reaction time (bench/dialog-latency.ts), and the benchmarks
 * with scripts of their own, each run as its npm script in its own processes, whose results files
 * it reads back. A piece that fails is recorded and fails the run as a whole; the rest still run.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../test/support/stack";
import type { CpuThrottling } from "./cpu";
import { type YearResults, RESULTS_FILE as YEAR_RESULTS_FILE } from "./build-year";
import { dialogLatencyLine, measureDialogLatencyOnLocalStack, type DialogLatency } from "./dialog-latency";
import type { HostileMailResults } from "./hostile-mail";
import { IMPORT_RESULTS_FILE, type ImportResults } from "./import";
import type { Skippable } from "./pieces";
import type { SendEffectCpuResults } from "./send-effect-cpu";
import type { SupabaseSendResults } from "./send-effect-supabase";
import { measureFirstVisitJs, type FirstVisitJs } from "./size";

/** A benchmark run as its npm script: whether it ran, and what it printed (or why not). */
export interface ScriptRun {
  ran: boolean;
  output: string;
}

export interface OtherMeasures {
  firstVisit: FirstVisitJs;
  dialog: { result: DialogLatency | null; error?: string };
  signup: ScriptRun;
  send: ScriptRun;
  supabaseSend: ScriptRun;
  cpuSend: ScriptRun;
  hostileMail: ScriptRun;
  year: ScriptRun;
  importList: ScriptRun;
}

/** The results files of the scripts that ran, read back. */
export interface ScriptResults {
  yearResults: YearResults | null;
  supabaseResults: SupabaseSendResults | null;
  cpuResults: SendEffectCpuResults | null;
  hostileResults: HostileMailResults | null;
  importResults: ImportResults | null;
}

/** The dialog's reaction time, in this process; a failure is reported and fails the run as a whole. */
async function dialogBench(cpu: CpuThrottling): Promise<{ result: DialogLatency | null; error?: string }> {
  console.log(`\nThe signup dialog's reaction time (npm run bench:dialog), CPU ${cpu.rate}x slower...`);
  try {
    const result = await measureDialogLatencyOnLocalStack(cpu);
    console.log(`  ${dialogLatencyLine(result)}`);
    return { result };
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
    return { result: null, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A benchmark with its own script (`npm run bench:signup`, `bench:send`), in its own processes. */
function benchScript(script: string, title: string): ScriptRun {
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

/** A piece `BENCH_SKIP` left out, recorded as such. */
const skippedScript = (script: string): ScriptRun => ({
  ran: false,
  output: `skipped (BENCH_SKIP), run \`npm run ${script}\``,
});

export async function measureOthers(
  skip: ReadonlySet<Skippable>,
  cpu: CpuThrottling,
): Promise<OtherMeasures> {
  const firstVisit = await measureFirstVisitJs();
  const dialog = skip.has("dialog")
    ? { result: null, error: "skipped (BENCH_SKIP), run `npm run bench:dialog`" }
    : await dialogBench(cpu);
  const script = (piece: Skippable, name: string, title: string) =>
    skip.has(piece) ? skippedScript(name) : benchScript(name, title);
  return {
    firstVisit,
    dialog,
    signup: script("signup", "bench:signup", "Signup endpoint under load"),
    send: script("send", "bench:send", "The Effect of the Day to 10,000 subscribers"),
    supabaseSend: script(
      "supabase",
      "bench:send-effect-supabase",
      "The Effect to 100,000 subscribers as Supabase sends it",
    ),
    cpuSend: script(
      "cpu",
      "bench:send-effect-cpu",
      "send-effect over SMTP, Resend and SES on the runtime twin",
    ),
    hostileMail: script(
      "hostile",
      "bench:hostile-mail",
      "Returned mail of hostile shapes, and a page served beside it",
    ),
    year: script("year", "bench:build-year", "3,650 Effects built and searched"),
    importList: script("import", "bench:import", "A Mailchimp list of 100,000 imported on PGlite"),
  };
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

export function scriptResults({
  supabaseSend,
  cpuSend,
  hostileMail,
  year,
  importList,
}: OtherMeasures): ScriptResults {
  return {
    yearResults: year.ran ? readJson<YearResults>(YEAR_RESULTS_FILE) : null,
    supabaseResults: supabaseSend.ran
      ? readJson<SupabaseSendResults>(path.join(__dirname, "supabase-send-results.json"))
      : null,
    cpuResults: cpuSend.ran
      ? readJson<SendEffectCpuResults>(path.join(__dirname, "send-effect-cpu-results.json"))
      : null,
    hostileResults: hostileMail.ran
      ? readJson<HostileMailResults>(path.join(__dirname, "hostile-mail-results.json"))
      : null,
    importResults: importList.ran ? readJson<ImportResults>(IMPORT_RESULTS_FILE) : null,
  };
}
