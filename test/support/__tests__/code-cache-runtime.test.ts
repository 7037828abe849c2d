/**
 * Jest's module runtime for the Node projects (test/support/jest/runtime.js): a module a later
 * test file loads again is compiled from V8's code cache of the first file's script, runs as it
 * did, and V8 accepts the cache.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
const RUNTIME = path.join(ROOT, "test/support/jest/runtime.js");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "code-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Seen {
  answer: number;
  fresh: string[];
  fromCache: string[];
  rejected: string[];
}

it("compiles a module a later file loads again from the first file's code cache, and it runs the same", () => {
  const project = path.join(dir, "project");
  mkdirSync(project);
  const shared = path.join(project, "shared.js");
  writeFileSync(shared, "exports.answer = (a, b) => a * 10 + b;\n");
  // The worker's own record of the runtime, handed to the files by their environment.
  writeFileSync(
    path.join(project, "environment.js"),
    `const { TestEnvironment } = require(${JSON.stringify(require.resolve("jest-environment-node"))});
module.exports = class extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.codeCache = require(${JSON.stringify(RUNTIME)}).codeCache;
  }
};
`,
  );
  const names = ["one", "two", "three"];
  for (const name of names)
    writeFileSync(
      path.join(project, `${name}.test.js`),
      `const { answer } = require("./shared.js");
test("runs the shared module", () => {
  const seen = { answer: answer(4, 2) };
  for (const [key, files] of Object.entries(codeCache)) seen[key] = [...files];
  require("node:fs").writeFileSync(${JSON.stringify(path.join(dir, name))}, JSON.stringify(seen));
});
`,
    );
  const config = { transform: {}, runtime: RUNTIME, testEnvironment: path.join(project, "environment.js") };
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, "node_modules/jest/bin/jest.js"),
      ...["--rootDir", project, "--config", JSON.stringify(config), "--runInBand"],
      ...["--no-cache", "--cacheDirectory", path.join(dir, "cache")],
    ],
    { cwd: project, encoding: "utf8", timeout: 60_000 },
  );
  expect(run.stderr).toContain("3 passed");
  expect(run.status).toBe(0);
  const seen = names.map((name) => JSON.parse(readFileSync(path.join(dir, name), "utf8")) as Seen);
  for (const file of seen) expect(file.answer).toBe(42);
  // One file compiled it; the files after it had it from the cache, which V8 took.
  const last = seen.reduce((a, b) => (b.fromCache.length > a.fromCache.length ? b : a));
  expect(last.fresh).toContain(shared);
  expect(last.fromCache).toContain(shared);
  expect(last.rejected).toEqual([]);
});

it("is the runtime of both projects that run in Node", () => {
  const config = jest.requireActual<{ projects: { displayName: string; runtime?: string }[] }>(
    "../../../jest.config.js",
  );
  const using = config.projects
    .filter((project) => project.runtime === "<rootDir>/test/support/jest/runtime.js")
    .map((project) => project.displayName);
  expect(using).toEqual(["backend", "e2e"]);
});
