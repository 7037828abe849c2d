/**
 * A lock file that holds its holder's process id, taken by creating it: one call makes and writes
 * it, so a file found empty is being written. Two users: the site's build (scripts/site-build.ts),
 * which waits as long as the holder runs, and the tests' PGlite templates
 * (test/support/pglite-template.ts), which also take over a lock older than a build of one can be.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";

/** How long a lock may stay empty: its writer died between making and writing it. */
const EMPTY_MS = 5_000;

/** Whether the process `pid` runs (EPERM: it does, as another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const readLock = (lock: string): string | null => {
  try {
    return readFileSync(lock, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
};

/**
 * Takes `lock` for this process unless a running process holds it; else says which (0: one whose
 * id is being written). A lock whose holder has ended, or older than `maxAgeMs`, is taken over.
 */
export function tryLock(
  lock: string,
  { maxAgeMs = Infinity }: { maxAgeMs?: number } = {},
): { taken: true } | { taken: false; holder: number } {
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      return { taken: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const text = readLock(lock);
    if (text === null) continue; // Released meanwhile.
    let age: number;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      continue; // Released meanwhile.
    }
    const holder = Number(text);
    const running = Number.isInteger(holder) && holder > 0;
    if (running ? processAlive(holder) && age <= maxAgeMs : age <= EMPTY_MS)
      return { taken: false, holder: running ? holder : 0 };
    // Unless another process took it over just now.
    if (readLock(lock) === text) rmSync(lock, { force: true });
  }
}

/** Removes `lock` if this process still holds it (another may have taken it over meanwhile). */
export function releaseLock(lock: string): void {
  if (readLock(lock) === String(process.pid)) rmSync(lock, { force: true });
}
