/**
 * `npm run bench:import` (and a part of `npm run bench`): a list of 100,000 brought from Mailchimp
 * on PGlite, as `npm run subscribers -- import FILE --from mailchimp` does it with the stack
 * stopped (the file read and checked, every address checked, the forgotten looked up, the rows
 * written in batches). Issue 42's budget: under 60 s. The file is Mailchimp's subscribed export
 * (`--rows N`, default 100,000, a few duplicates and rows that are not addresses among them), on a
 * fresh migrated PGlite folder; then the same file again, which must change nothing. Prints a
 * table and writes bench/import-results.json, which `npm run bench` turns into a verdict.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { readTextVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { openStorage } from "../server/storage.ts";
import { importExport, readExport } from "../server/subscriber-import.ts";
import { preparedDataDir } from "../test/support/test-stack.ts";
import { textTable } from "./table.ts";

export const IMPORT_RESULTS_FILE = path.join(__dirname, "import-results.json");
/** Issue 42's budget for 100,000 rows on PGlite. */
export const IMPORT_BUDGET_MS = 60_000;

export interface ImportResults {
  date: string;
  cpus: number;
  cpuModel: string;
  loadAverage: number;
  rows: number;
  bytes: number;
  /** The first import: every address new. */
  importMs: number;
  /** The same file again. */
  againMs: number;
  imported: number;
  importedAgain: number;
}

const HEADER =
  "Email Address,First Name,Last Name,MEMBER_RATING,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,CONFIRM_IP,LATITUDE,LONGITUDE,GMTOFF,DSTOFF,TIMEZONE,CC,REGION,LAST_CHANGED,LEID,EUID,NOTES,TAGS";

/** Mailchimp's subscribed file of `rows` rows: one in 1,000 a duplicate in capitals, one in 5,000 no address. */
export function mailchimpFile(rows: number): string {
  const lines = [HEADER];
  const start = Date.UTC(2019, 0, 1);
  for (let index = 0; index < rows; index++) {
    const at = new Date(start + index * 600_000).toISOString().slice(0, 19).replace("T", " ");
    const email =
      index % 5000 === 4999
        ? `reader ${index} at example.com`
        : index % 1000 === 999
          ? `Reader${index - 1}@Example.com`
          : `reader${index}@example.com`;
    lines.push(
      `${email},Reader,"No. ${index}, kept",2,${at},198.51.100.${index % 250},${at},198.51.100.${index % 250},,,,,,,,${at},${index},e${index},,"""Podcast listeners"""`,
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

export function importVerdicts(results: ImportResults) {
  return [
    {
      target: `${results.rows.toLocaleString("en-US")} rows of a Mailchimp export imported on PGlite in under ${IMPORT_BUDGET_MS / 1000} s`,
      met: results.importMs < IMPORT_BUDGET_MS && results.importedAgain === 0,
      detail: `${(results.importMs / 1000).toFixed(1)} s (${results.imported.toLocaleString("en-US")} new readers); the same file again ${(results.againMs / 1000).toFixed(1)} s, ${results.importedAgain} new`,
    },
  ];
}

/** The line `npm run bench` writes into bench/RESULTS.md. */
export function importSummary(): string {
  const results = JSON.parse(readFileSync(IMPORT_RESULTS_FILE, "utf8")) as ImportResults;
  const [verdict] = importVerdicts(results);
  return (
    `Import (\`npm run bench:import\`, ${results.date.slice(0, 16).replace("T", " ")} UTC, ${results.cpus} CPUs, ` +
    `${results.cpuModel}, load ${results.loadAverage}): ${verdict.target}: ${verdict.detail}.`
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rows: { type: "string", default: "100000" } } });
  const rows = Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1) throw new Error("--rows must be a whole number above 0");
  const dataDir = await preparedDataDir();
  const fileDir = mkdtempSync(path.join(os.tmpdir(), "bench-import-"));
  const file = path.join(fileDir, "subscribed_members_export_bench.csv");
  writeFileSync(file, mailchimpFile(rows));
  const storage = await openStorage({ dataDir });
  try {
    const run = async () => {
      const started = performance.now();
      const parsed = readExport("mailchimp", path.basename(file), readFileSync(file, "utf8"));
      const summary = await importExport(parsed, storage.db, storage.description, {
        forgetKey: readTextVariable({}, "FORGET_HASH_KEY"),
        welcome: false,
        now: new Date(),
      });
      const imported = Number(/new readers, confirmed\s+(\d+)/.exec(summary)?.[1]);
      return { ms: performance.now() - started, imported, summary };
    };
    console.log(
      `Importing ${rows.toLocaleString("en-US")} rows of a Mailchimp export on PGlite, then again...`,
    );
    const first = await run();
    const again = await run();
    process.stdout.write(first.summary);
    const results: ImportResults = {
      date: new Date().toISOString(),
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? "unknown",
      loadAverage: Number(os.loadavg()[0].toFixed(2)),
      rows,
      bytes: Buffer.byteLength(readFileSync(file)),
      importMs: Math.round(first.ms),
      againMs: Math.round(again.ms),
      imported: first.imported,
      importedAgain: again.imported,
    };
    writeFileSync(IMPORT_RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    console.log(
      `\n${textTable(
        ["run", "rows", "new readers", "time", "budget"],
        [
          [
            "first import",
            String(rows),
            String(first.imported),
            `${(first.ms / 1000).toFixed(1)} s`,
            `${IMPORT_BUDGET_MS / 1000} s`,
          ],
          ["same file again", String(rows), String(again.imported), `${(again.ms / 1000).toFixed(1)} s`, "-"],
        ],
      )}`,
    );
    for (const { target, met, detail } of importVerdicts(results))
      console.log(`  ${met ? "met   " : "MISSED"}  ${target}: ${detail}`);
    if (!importVerdicts(results).every((verdict) => verdict.met)) process.exitCode = 1;
  } finally {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(fileDir, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
