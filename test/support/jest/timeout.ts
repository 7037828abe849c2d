/**
 * Each Jest project's time limit for a test or hook, named once in jest.config.js as
 * `globals.testTimeoutMs`. Jest 29 reads `testTimeout` only at the top of the configuration, not
 * per project (jestjs/jest#9759, fixed in Jest 30), so this applies it.
 */
const { testTimeoutMs } = globalThis as { testTimeoutMs?: unknown };
if (typeof testTimeoutMs !== "number")
  throw new Error("jest.config.js names no globals.testTimeoutMs for this project");
jest.setTimeout(testTimeoutMs);
