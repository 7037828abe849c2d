/**
 * The PGlite template's one builder (test/support/pglite-template.ts's `buildOnce`): files that
 * start together wait for one build instead of making their own, and a lock left by a process that
 * died does not stop the next.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildOnce } from "../pglite-template";

/** Each case well inside the two minutes after which any lock is taken over. */
const CASE_MS = 10_000;

describe("a folder built once", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "build-once-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const slowBuild = (builds: string[]) => async (target: string) => {
    builds.push(target);
    await new Promise((resolve) => setTimeout(resolve, 300));
    mkdirSync(target);
  };

  it(
    "is built by one of several callers at once; the others wait for it",
    async () => {
      const target = path.join(dir, "template");
      const builds: string[] = [];
      await Promise.all([1, 2, 3].map(() => buildOnce(target, slowBuild(builds))));
      expect(builds).toEqual([target]);
      expect(existsSync(target)).toBe(true);
      expect(existsSync(`${target}.lock`)).toBe(false);
      await buildOnce(target, slowBuild(builds));
      expect(builds).toHaveLength(1);
    },
    CASE_MS,
  );

  /** A lock file left as `lock` says (its holder's pid, and how old it is): the next caller builds. */
  const builtDespite = async (lock: { pid: number; ageMs: number }) => {
    const target = path.join(dir, "template");
    writeFileSync(`${target}.lock`, String(lock.pid));
    const then = new Date(Date.now() - lock.ageMs);
    utimesSync(`${target}.lock`, then, then);
    const builds: string[] = [];
    await buildOnce(target, slowBuild(builds));
    expect(builds).toEqual([target]);
  };

  it(
    "is built when the lock names a process that has ended",
    () => builtDespite({ pid: spawnSync(process.execPath, ["-e", "0"]).pid, ageMs: 0 }),
    CASE_MS,
  );

  it(
    "is built when a running process has held the lock for more than two minutes",
    () => builtDespite({ pid: process.pid, ageMs: 3 * 60_000 }),
    CASE_MS,
  );

  it(
    "leaves no lock when the build fails, so the next caller builds",
    async () => {
      const target = path.join(dir, "template");
      await expect(
        buildOnce(target, async () => {
          throw new Error("PGlite could not start");
        }),
      ).rejects.toThrow("PGlite could not start");
      const builds: string[] = [];
      await buildOnce(target, slowBuild(builds));
      expect(builds).toEqual([target]);
    },
    CASE_MS,
  );
});
