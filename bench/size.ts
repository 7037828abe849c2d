/**
 * `npm run size`: the JavaScript a first visit downloads, gzipped, per file and in total, measured
 * in Chromium against the built site on the local stack. Exits non-zero over the 100 KB budget.
 */
import { launchChromium, VIEWPORTS } from "../test/support/browser";
import { buildSiteIfStale } from "../scripts/site-build";
import {
  FIRST_VISIT_BUDGET_BYTES,
  firstVisitScripts,
  kb,
  totalGzipBytes,
  type ScriptFile,
} from "../test/support/first-visit";
import { startStack } from "../test/support/stack";
import { textTable } from "./table";

export interface FirstVisitJs {
  files: ScriptFile[];
  totalGzipBytes: number;
  budgetBytes: number;
}

export async function measureFirstVisitJs(): Promise<FirstVisitJs> {
  buildSiteIfStale();
  const [stack, browser] = await Promise.all([startStack(), launchChromium()]);
  try {
    const context = await browser.newContext({ viewport: VIEWPORTS.mobile });
    const files = await firstVisitScripts(await context.newPage(), `${stack.url}/`);
    return { files, totalGzipBytes: totalGzipBytes(files), budgetBytes: FIRST_VISIT_BUDGET_BYTES };
  } finally {
    await browser.close();
    await stack.stop();
  }
}

export function firstVisitTable({ files, totalGzipBytes: total }: FirstVisitJs): string {
  return textTable(
    ["file", "bytes", "gzipped"],
    [
      ...files.map((file) => [file.file, String(file.bytes), kb(file.gzipBytes)]),
      ["total", String(files.reduce((sum, file) => sum + file.bytes, 0)), kb(total)],
    ],
  );
}

async function main(): Promise<void> {
  const result = await measureFirstVisitJs();
  console.log("JavaScript downloaded by a first visit (load, scroll to the bottom), gzipped:\n");
  console.log(firstVisitTable(result));
  const verdict = result.totalGzipBytes <= result.budgetBytes ? "within" : "OVER";
  console.log(`\n${kb(result.totalGzipBytes)} of ${kb(result.budgetBytes)}: ${verdict} budget.`);
  if (verdict === "OVER") process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
