// Jest's own order (the files that failed last time first, then the longest), with the browser
// tests after the rest: their site builds in the background meanwhile (test/support/test-site-build.ts).
const Sequencer = require("@jest/test-sequencer").default;

const inBrowser = (test) => test.context.config.displayName?.name === "e2e";

class BrowserTestsLast extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter((test) => !inBrowser(test)), ...sorted.filter(inBrowser)];
  }
}

module.exports = BrowserTestsLast;
