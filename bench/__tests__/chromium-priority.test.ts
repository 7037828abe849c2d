/**
 * The bench's Chromium priorities (bench/chromium-priority.ts) on a real Chromium and a real Node
 * child: every renderer's main thread at -20 (again after Chromium sets it back), Chromium's other
 * threads at -10, the bench's other processes as they were.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import {
  CHROMIUM_EXECUTABLE,
  CHROMIUM_NICE,
  type ChromiumPriority,
  prioritizeChromium,
  RENDERER_MAIN_NICE,
} from "../chromium-priority";
import { launchTestBrowser, testBrowserAvailable, TEST_BROWSER_HINT } from "../../test/support/browser";
import { eventually } from "../../test/support/eventually";

/** Whether this process may give a thread a negative nice (root, or CAP_SYS_NICE). */
function mayRaise(): boolean {
  const probe = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"]);
  try {
    os.setPriority(probe.pid!, -1);
    return true;
  } catch {
    return false;
  } finally {
    probe.kill();
  }
}

const read = (file: string): string => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};
const executableOf = (pid: number): string => {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return "";
  }
};
/** Every process under `pid`, with its Chromium `--type` and each thread's nice. */
function tree(
  pid: number,
): Array<{ pid: number; type: string; threads: Array<{ tid: number; nice: number }> }> {
  const tids = (() => {
    try {
      return readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      return [];
    }
  })();
  const threads = tids.flatMap((tid) => {
    try {
      return [{ tid, nice: os.getPriority(tid) }];
    } catch {
      return [];
    }
  });
  const type = /[\0 ]--type=([^\0 ]+)/.exec(read(`/proc/${pid}/cmdline`))?.[1] ?? "browser";
  const children = tids.flatMap((tid) =>
    read(`/proc/${pid}/task/${tid}/children`).split(" ").filter(Boolean).map(Number),
  );
  return [{ pid, type, threads }, ...children.flatMap(tree)];
}

const describeWithBrowser = testBrowserAvailable() ? describe : describe.skip;
if (!testBrowserAvailable()) console.warn(`Chromium's headless shell is missing: ${TEST_BROWSER_HINT}`);

describeWithBrowser("Chromium's priority in the bench", () => {
  let browser: Browser | undefined;
  let other: ChildProcess | undefined;
  let priority: ChromiumPriority | undefined;
  afterEach(async () => {
    priority?.stop();
    await browser?.close();
    other?.kill();
  });

  it("raises every renderer's main thread above Chromium's other threads, again when it is set back, and leaves the bench's other processes alone", async () => {
    const permitted = mayRaise();
    // This process's own priority, which its other children keep (0 unless run under `nice`).
    const own = os.getPriority(process.pid);
    priority = prioritizeChromium();
    // A process of the bench's own, as a stack is.
    other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    browser = await launchTestBrowser();
    const page = await browser.newPage();
    await page.goto("data:text/html,<title>one</title><p>One page.");
    // Another document in the same tab: Chromium sets its renderer's priority as pages come and go.
    await page.goto("data:text/html,<title>two</title><p>Another page.");

    // Chromium's processes: those under this one that run its executable.
    const chromium = () =>
      tree(process.pid).filter((process) =>
        CHROMIUM_EXECUTABLE.test(path.basename(executableOf(process.pid))),
      );
    if (!permitted) {
      console.warn(
        "Not permitted to raise a thread here (root or CAP_SYS_NICE): only the refusal is checked.",
      );
      const report = priority.stop();
      expect(report).toMatchObject({ applied: false, reason: expect.stringMatching(/CAP_SYS_NICE/) });
      return;
    }
    const atTheirPriorities = () =>
      eventually(
        () => {
          const processes = chromium();
          const renderers = processes.filter((process) => process.type === "renderer");
          expect(renderers.length).toBeGreaterThan(0);
          for (const renderer of renderers)
            expect(renderer.threads.find((thread) => thread.tid === renderer.pid)?.nice).toBe(
              RENDERER_MAIN_NICE,
            );
          const others = processes.flatMap((process) =>
            process.threads.filter((thread) => !(process.type === "renderer" && thread.tid === process.pid)),
          );
          expect(others.length).toBeGreaterThan(10);
          // Below the main thread; most at CHROMIUM_NICE, some as Chromium itself sets them (as root
          // it gives its compositor and IO threads -8, and some pool workers 0, as their work changes).
          for (const thread of others) expect(thread.nice).toBeGreaterThan(RENDERER_MAIN_NICE);
          const raised = others.filter((thread) => thread.nice === CHROMIUM_NICE);
          expect(raised.length).toBeGreaterThan(others.length / 2);
          return true;
        },
        { what: "Chromium's threads at their priorities" },
      );
    await atTheirPriorities();
    // Set back as Chromium sets it when its page leaves the foreground: raised again.
    const renderer = chromium().find((process) => process.type === "renderer")!;
    os.setPriority(renderer.pid, 5);
    await atTheirPriorities();
    expect(
      new Set(tree(other.pid!).flatMap((process) => process.threads.map((thread) => thread.nice))),
    ).toEqual(new Set([own]));
    expect(os.getPriority(process.pid)).toBe(own);
    const report = priority.stop();
    expect(report).toMatchObject({ applied: true });
    expect(report.browsers).toBeGreaterThanOrEqual(1);
    expect(report.renderers).toBeGreaterThan(0);
  });
});
