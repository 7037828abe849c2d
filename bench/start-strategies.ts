/**
 * `npm run bench:strategies`: the measurement behind starting the scripts on the first interaction
 * (src/loading/script-starter.ts) rather than when the browser is idle after `load`. Lighthouse
 * runs, in a rotated order each round: the built landing page as it is; the same page with a
 * starter that also starts the scripts in `requestIdleCallback` after `load`; and the
 * no-JavaScript twin. Prints the medians. Not part of `npm run bench`: it backs a decision,
 * recorded in bench/RESULTS.md.
 */
import path from "node:path";
import { STARTER_SCRIPT } from "../src/loading/script-starter";
import { buildSiteIfStale } from "../scripts/site-build";
import { ROOT, startStack } from "../toolkit/stack";
import { lighthouseRunWithRetry, median, RUNS, type Run } from "./lighthouse";
import { textTable } from "./table";
import { writeRewrittenCopy, writeTwin } from "./twin";

/** The starter, plus: start anyway once the browser is idle after `load`. */
const IDLE_STARTER = STARTER_SCRIPT.replace(
  /\}\)\(\);$/,
  '  w.addEventListener("load", function () { (w.requestIdleCallback || setTimeout)(start); });\n})();',
);

function withIdleStart(html: string): { html: string; removed: number } {
  const at = html.indexOf(STARTER_SCRIPT);
  if (at === -1) return { html, removed: 0 };
  return { html: html.replace(STARTER_SCRIPT, IDLE_STARTER), removed: 1 };
}

async function main(): Promise<void> {
  if (IDLE_STARTER === STARTER_SCRIPT)
    throw new Error("The starter no longer ends with })(); update IDLE_STARTER");
  buildSiteIfStale();
  const publicDir = path.join(ROOT, "public");
  const tmp = path.join(ROOT, "bench", ".tmp");
  const copies = [
    writeRewrittenCopy(publicDir, path.join(tmp, "strategy-idle"), withIdleStart),
    writeTwin(publicDir, path.join(tmp, "strategy-twin")),
  ];
  if (copies[0].removed === 0)
    throw new Error("No page of public/ holds the current starter: rebuild the site");
  const stacks = await Promise.all([
    startStack(),
    ...copies.map((copy) => startStack({ PUBLIC_DIR: copy.dir })),
  ]);
  const names = ["first interaction (built)", "idle after load", "no-JavaScript twin"];
  const runs: Run[][] = names.map(() => []);
  try {
    for (let round = 0; round < RUNS; round += 1) {
      for (let step = 0; step < names.length; step += 1) {
        const index = (round + step) % names.length;
        const run = await lighthouseRunWithRetry(`${stacks[index].url}/`);
        runs[index].push(run);
        console.log(
          `  ${names[index]} ${round + 1}/${RUNS}: performance ${run.performance}, LCP ${Math.round(run.lcpMs)} ms, TBT ${Math.round(run.tbtMs)} ms`,
        );
      }
    }
  } finally {
    await Promise.all(stacks.map((stack) => stack.stop()));
    for (const copy of copies) copy.remove();
  }
  const med = (index: number, key: keyof Run) => Math.round(median(runs[index].map((run) => run[key])));
  console.log(`\nLighthouse, mobile, simulated throttling, median of ${RUNS}:\n`);
  console.log(
    textTable(
      ["scripts start", "performance", "LCP", "TBT", "max TBT", "script bytes"],
      names.map((name, index) => [
        name,
        String(med(index, "performance")),
        `${med(index, "lcpMs")} ms`,
        `${med(index, "tbtMs")} ms`,
        `${Math.round(Math.max(...runs[index].map((run) => run.tbtMs)))} ms`,
        `${(med(index, "scriptBytes") / 1024).toFixed(1)} KB`,
      ]),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
