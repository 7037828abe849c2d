// Packages a Jest worker loads once, outside the test files' sandboxes, and hands to every file
// that imports them: jest.config.js maps each to its file here (outside-playwright-core.js). In a
// test file's sandbox every read of a global (`Object`, `Array`, `Math`) goes through the
// context's interceptor, and a library that validates each protocol message as Playwright's
// client does spends its time there; the sandbox also loads and compiles the library again for
// each file (e2e/accessibility.test.ts: 18.4 s of CPU with Playwright in its sandbox, 15.7 s
// outside). Only a library the tests use as a tool, never mock and never reach into belongs here.
const OUTSIDE = ["playwright-core"];

/** jest.config.js's moduleNameMapper entries: each package to its file here, named after it. */
const outsideModuleMap = () =>
  Object.fromEntries(
    OUTSIDE.map((name) => [
      `^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`,
      `<rootDir>/test/support/jest/outside-${name}.js`,
    ]),
  );

/** A test environment class whose sandbox can reach the packages of OUTSIDE as the worker loaded them. */
function outsideSandbox(Environment) {
  return class extends Environment {
    constructor(config, context) {
      super(config, context);
      this.global.outsideSandbox = (name) => {
        if (!OUTSIDE.includes(name)) throw new Error(`${name} is not loaded outside the sandbox`);
        return require(name);
      };
    }
  };
}

module.exports = { OUTSIDE, outsideModuleMap, outsideSandbox };
