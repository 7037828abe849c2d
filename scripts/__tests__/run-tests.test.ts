/**
 * `npm test`'s runner (scripts/run-tests.ts) with real processes in place of the checks and Jest: the
 * checks, and what they start, run at the lowest priority while the tests keep theirs; the checks'
 * output is printed once, whole; the command fails when either side fails, and waits for both.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import path from "node:path";
import { checkBesideTests, type Command } from "../run-tests.ts";

let dir: string;
let printed: string[];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "test-command-"));
  printed = [];
  jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    printed.push(chunk.toString());
    return true;
  });
  jest.spyOn(console, "error").mockImplementation((...words: unknown[]) => {
    printed.push(words.join(" "));
  });
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** A Node process running `code`. */
const node = (code: string): Command => ({ command: process.execPath, args: ["-e", code] });

/** The checks' stand-in: says its priority and that of a process it starts, then ends with `code`. */
const check = (code: number, waitMs = 0): Command =>
  node(`
    const { execFileSync } = require("node:child_process");
    console.log("check at", require("node:os").getPriority());
    execFileSync(process.execPath, ["-e", 'console.log("its child at", require("node:os").getPriority())'], { stdio: "inherit" });
    setTimeout(() => process.exit(${code}), ${waitMs});
  `);

/**
 * Jest's stand-in: writes its priority into the folder it is given (its output goes straight to the
 * terminal), ends with `code`.
 */
const tests = (code: number): Command =>
  node(`
    require("node:fs").writeFileSync(require("node:path").join(process.argv[1], "tests"), String(require("node:os").getPriority()));
    process.exit(${code});
  `);

const withDir = (command: Command): Command => ({ ...command, args: [...command.args, dir] });

it("runs the checks, and what they start, at the lowest priority beside the tests at theirs, and passes when both pass", async () => {
  const code = await checkBesideTests(check(0), withDir(tests(0)), dir);
  expect(code).toBe(0);
  const output = printed.join("");
  expect(output).toContain("check at 19");
  expect(output).toContain("its child at 19");
  expect(readFileSync(path.join(dir, "tests"), "utf8")).toBe(String(getPriority()));
  // Printed once, whole.
  expect(output.match(/check at/g)).toHaveLength(1);
  expect(output).not.toContain("the checks failed");
});

it("fails when a check fails though the tests pass, and says so after the checks' own lines", async () => {
  const code = await checkBesideTests(check(3), withDir(tests(0)), dir);
  expect(code).toBe(3);
  const output = printed.join("");
  expect(output.indexOf("its child at 19")).toBeLessThan(output.indexOf("the checks failed"));
});

it("fails with the tests' code when they fail and the checks pass", async () => {
  expect(await checkBesideTests(check(0), withDir(tests(2)), dir)).toBe(2);
});

it("waits for checks that end after the tests", async () => {
  const started = Date.now();
  const code = await checkBesideTests(check(4, 1_500), withDir(tests(0)), dir);
  expect(code).toBe(4);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  expect(printed.join("")).toContain("its child at 19");
});
