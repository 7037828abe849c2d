/**
 * The PGlite folder's lock: a live holder refuses a second process with its number; a holder that
 * was killed (even one its parent has not reaped yet) or a number now used by another process
 * does not, so a restart right after kill -9 starts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../../test/support/eventually.ts";
import { lockDataDir } from "../data-dir-lock.ts";

const linux = process.platform === "linux";
const procState = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[0];
const startTime = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[19];

/**
 * `parent` never reaps `child`: bash starts a background sleep and then becomes another sleep,
 * which never waits. Killing `child` leaves it a zombie, as a crashed stack is until reaped.
 */
async function parentAndChild(): Promise<{ parent: ChildProcess; child: number }> {
  const parent = spawn("bash", ["-c", "sleep 60 & echo $!; exec sleep 60"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const child = await new Promise<number>((resolve) =>
    parent.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  // Until bash has become the sleep, bash itself would reap a killed child: wait for the exec.
  const command = () => readFileSync(`/proc/${parent.pid}/comm`, "utf8").trim();
  await eventually(command, {
    what: `bash (${parent.pid}) to become sleep`,
    until: (name) => name === "sleep",
  });
  return { parent, child };
}

(linux ? describe : describe.skip)("the PGlite folder's lock", () => {
  let dataDir: string;
  let processes: ChildProcess[] = [];
  let children: number[] = [];
  const lockFile = () => path.join(dataDir, "pglite.pid");

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), "lock-"));
  });
  afterEach(() => {
    for (const child of children) {
      try {
        process.kill(child, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    for (const parent of processes) {
      parent.stdout?.destroy();
      parent.kill("SIGKILL");
    }
    processes = [];
    children = [];
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses while the process that holds it runs, naming it", async () => {
    const { parent, child } = await parentAndChild();
    processes.push(parent);
    children.push(child);
    writeFileSync(lockFile(), `${child} ${startTime(child)}\n`);
    expect(() => lockDataDir(dataDir)).toThrow(`is in use by process ${child} (a running local stack?)`);
  });

  it("is taken over from a holder killed with kill -9 that its parent has not reaped yet", async () => {
    const { parent, child } = await parentAndChild();
    processes.push(parent);
    children.push(child);
    writeFileSync(lockFile(), `${child} ${startTime(child)}\n`);
    process.kill(child, "SIGKILL");
    await eventually(() => procState(child), {
      what: `the killed holder ${child} to be a zombie`,
      until: (state) => state === "Z",
    });

    const unlock = lockDataDir(dataDir);
    expect(readFileSync(lockFile(), "utf8")).toBe(`${process.pid} ${startTime(process.pid)}\n`);
    unlock();
    expect(() => readFileSync(lockFile())).toThrow(/ENOENT/);
  });

  it("is taken over when the number it names now belongs to another process", async () => {
    const { parent, child } = await parentAndChild();
    processes.push(parent);
    children.push(child);
    const otherStart = String(Number(startTime(child)) - 1);
    writeFileSync(lockFile(), `${child} ${otherStart}\n`);
    expect(() => lockDataDir(dataDir)()).not.toThrow();
  });

  it("is taken over from a holder that is gone, also in the older file format without a start time", () => {
    writeFileSync(lockFile(), "999999999\n");
    expect(() => lockDataDir(dataDir)()).not.toThrow();
  });
});
