/**
 * `npm run bench:strategies`: the measurement behind starting the scripts when the browser is first
 * idle after `load` (src/loading/script-starter.ts). Three ways of loading them, each a copy of
 * the built site with its starter's last lines rewritten, beside the no-JavaScript twin:
 *  - idle after load (the build as it is): fetch and run them;
 *  - first interaction: fetch and run them on the first pointer, key, touch, wheel, scroll or
 *    mouse move (an interaction before `load` waits for it);
 *  - prefetch: fetch them at idle after `load` (`<link rel="prefetch">`), run them on the first
 *    interaction.
 * For each: Lighthouse (mobile, simulated throttling) and the first tap on a phone (bench/first-tap.ts),
 * on the calibrated CPU (bench/cpu.ts; `--host-index`, `--multiplier` as for `npm run bench`),
 * rounds rotated. Prints the medians. Not part of `npm run bench`: it backs a decision, recorded
 * in bench/RESULTS.md and the README.
 */
import path from "node:path";
import { STARTER_SCRIPT } from "../src/loading/script-starter";
import { SCRIPTS_TEMPLATE_ID } from "../src/loading/starter-names";
import { buildSiteIfStale } from "../scripts/site-build";
import { calibrateCpu } from "./cpu";
import { ROOT, startStack } from "../test/support/stack";
import { measureFirstTap, phoneDescription, TAP_RUNS, type TapResult } from "./first-tap";
import { lighthouseRunWithRetry, RUNS, type Run } from "./lighthouse";
import { median } from "./stats";
import { textTable } from "./table";
import { writeRewrittenCopy, writeTwin } from "./twin";

/** Where the built starter decides when to start; each variant replaces it from here to the end. */
const DECISION = "  function whenIdle() {";

const ON_INTERACTION = `  var events = ["pointerdown", "keydown", "touchstart", "wheel", "scroll", "mousemove"];
  function interacted() {
    for (var i = 0; i < events.length; i++) w.removeEventListener(events[i], interacted, true);
    if (d.readyState === "complete") start();
    else w.addEventListener("load", start);
  }
  if (/[?&](confirm|unsubscribe)=/.test(location.search)) start();
  else for (var k = 0; k < events.length; k++) w.addEventListener(events[k], interacted, true);
`;

const PREFETCH = `  w.addEventListener("load", function () {
    (w.requestIdleCallback || setTimeout)(function () {
      var scripts = d.getElementById("${SCRIPTS_TEMPLATE_ID}").content.querySelectorAll("script[src]");
      for (var i = 0; i < scripts.length; i++) {
        var link = d.createElement("link");
        link.rel = "prefetch";
        link.as = "script";
        link.href = scripts[i].getAttribute("src");
        d.head.appendChild(link);
      }
    });
  });
`;

function starterDeciding(decision: string): string {
  const at = STARTER_SCRIPT.indexOf(DECISION);
  if (at === -1) throw new Error(`The starter no longer has "${DECISION.trim()}": update the variants`);
  return `${STARTER_SCRIPT.slice(0, at)}${decision}})();`;
}

const rewriteStarter = (starter: string) => (html: string) =>
  html.includes(STARTER_SCRIPT)
    ? { html: html.replace(STARTER_SCRIPT, starter), removed: 1 }
    : { html, removed: 0 };

async function main(): Promise<void> {
  const cpu = await calibrateCpu();
  buildSiteIfStale();
  const publicDir = path.join(ROOT, "public");
  const tmp = path.join(ROOT, "bench", ".tmp");
  const variants = [
    writeRewrittenCopy(
      publicDir,
      path.join(tmp, "strategy-interaction"),
      rewriteStarter(starterDeciding(ON_INTERACTION)),
    ),
    writeRewrittenCopy(
      publicDir,
      path.join(tmp, "strategy-prefetch"),
      rewriteStarter(starterDeciding(`${ON_INTERACTION}${PREFETCH}`)),
    ),
  ];
  if (variants.some((variant) => variant.removed === 0))
    throw new Error("No page of public/ holds the current starter: rebuild the site");
  const twin = writeTwin(publicDir, path.join(tmp, "strategy-twin"));
  const names = ["idle after load (built)", "first interaction", "prefetch, run on interaction", "twin"];
  const stacks = await Promise.all([
    startStack(),
    ...[...variants, twin].map((copy) => startStack({ PUBLIC_DIR: copy.dir })),
  ]);
  const runs: Run[][] = names.map(() => []);
  let taps: TapResult[] = [];
  try {
    for (let round = 0; round < RUNS; round += 1) {
      for (let step = 0; step < names.length; step += 1) {
        const index = (round + step) % names.length;
        const run = await lighthouseRunWithRetry(`${stacks[index].url}/`, cpu);
        runs[index].push(run);
        console.log(
          `  ${names[index]} ${round + 1}/${RUNS}: performance ${run.performance}, LCP ${Math.round(run.lcpMs)} ms, TBT ${Math.round(run.tbtMs)} ms`,
        );
      }
    }
    // The twin has no dialog to open.
    taps = await measureFirstTap(
      names.slice(0, 3).map((label, index) => ({ label, url: `${stacks[index].url}/` })),
      cpu,
      TAP_RUNS,
      (line) => console.log(`  ${line}`),
    );
  } finally {
    await Promise.all(stacks.map((stack) => stack.stop()));
    for (const copy of [...variants, twin]) copy.remove();
  }
  const med = (index: number, key: keyof Run) => Math.round(median(runs[index].map((run) => run[key])));
  const tap = (label: string, afterLoadMs: number) => {
    const result = taps.find((one) => one.label === label && one.afterLoadMs === afterLoadMs);
    return result ? `${Math.round(result.medianMs)} ms (max ${result.maxMs})` : "-";
  };
  console.log(
    `\nLighthouse (mobile, simulated throttling, CPU ${cpu.multiplier}x), median of ${RUNS}; the tap on "Join the ` +
      `Movement" to its dialog on a phone (${phoneDescription(cpu)}), median of ${TAP_RUNS}:\n`,
  );
  console.log(
    textTable(
      [
        "scripts",
        "performance",
        "LCP",
        "TBT",
        "max TBT",
        "script bytes",
        "tap 1 s after load",
        "tap 3 s after load",
      ],
      names.map((name, index) => [
        name,
        String(med(index, "performance")),
        `${med(index, "lcpMs")} ms`,
        `${med(index, "tbtMs")} ms`,
        `${Math.round(Math.max(...runs[index].map((run) => run.tbtMs)))} ms`,
        `${(med(index, "scriptBytes") / 1024).toFixed(1)} KB`,
        tap(name, 1_000),
        tap(name, 3_000),
      ]),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
