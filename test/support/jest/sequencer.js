// Jest's own order (the files that failed last time first, then the longest), with the browser
// tests after the rest: their site builds in the background meanwhile (test/support/test-site-build.ts).
// Jest knows the files' durations only from an earlier run on the same machine (its cache); on a
// fresh clone, as in CI, it orders them by size, and a short file that runs long (the accessibility
// checks) started last and ended the run alone. The files below take over 45 s each on two cores
// (JEST_TIMES_FILE): each group starts with them, longest first.
const Sequencer = require("@jest/test-sequencer").default;

const LONGEST_FIRST = [
  "scripts/__tests__/deploying-doc.test.ts",
  "scripts/__tests__/effect-command.test.ts",
  "scripts/__tests__/report.test.ts",
  "e2e/cms-develop.test.ts",
  "e2e/accessibility.test.ts",
  "e2e/start-freshness.test.ts",
  "e2e/cms.test.ts",
  "e2e/effect-cards.test.ts",
];

const inBrowser = (test) => test.context.config.displayName?.name === "e2e";

const rank = (test) => {
  const index = LONGEST_FIRST.findIndex((file) => test.path.endsWith(`/${file}`));
  return index === -1 ? LONGEST_FIRST.length : index;
};

class BrowserTestsLast extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    // Array.prototype.sort is stable: the rest keep Jest's order.
    const longestFirst = (group) => group.sort((a, b) => rank(a) - rank(b));
    return [
      ...longestFirst(sorted.filter((test) => !inBrowser(test))),
      ...longestFirst(sorted.filter(inBrowser)),
    ];
  }
}

module.exports = BrowserTestsLast;
module.exports.LONGEST_FIRST = LONGEST_FIRST;
