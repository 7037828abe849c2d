/**
 * One process per PGlite folder: `$DATA_DIR/pglite.pid` names the process that holds it, so a
 * second local stack (or `npm run subscribers` beside a running one) stops with a clear message
 * instead of corrupting the data. A holder that is gone does not count, so a restart right after
 * a crash (kill -9) starts at once: a dead process not yet reaped by its parent (a zombie) is
 * gone, and so is an unrelated process that got the dead holder's number later (the file records
 * the holder's start time, and Linux tells every process's in /proc/PID/stat).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

interface Holder {
  pid: number;
  /** Clock ticks after boot at which the process started (field 22 of /proc/PID/stat). */
  startTime?: string;
}

/** State and start time of a process from /proc, or null where there is no /proc (not Linux). */
function procStat(pid: number): { state: string; startTime: string } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No such process on a system with /proc; elsewhere the caller falls back to a signal.
    if (code === "ENOENT" && existsSync("/proc/self/stat")) return { state: "X", startTime: "" };
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: read after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], startTime: fields[19] };
}

function holderAlive(holder: Holder): boolean {
  const stat = procStat(holder.pid);
  if (stat) {
    // Z: killed and not yet reaped by its parent; X: gone.
    if (stat.state === "Z" || stat.state === "X") return false;
    return holder.startTime === undefined || holder.startTime === stat.startTime;
  }
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(lockFile: string): Holder | null {
  const [pid, startTime] = readFileSync(lockFile, "utf8").trim().split(/\s+/);
  const number = Number(pid);
  return Number.isInteger(number) && number > 0 ? { pid: number, startTime } : null;
}

/** The live process other than this one that holds the folder, or null. */
export function dataDirHolder(dataDir: string): number | null {
  const lockFile = path.join(dataDir, "pglite.pid");
  const holder = existsSync(lockFile) ? readHolder(lockFile) : null;
  return holder && holder.pid !== process.pid && holderAlive(holder) ? holder.pid : null;
}

/** Takes `$DATA_DIR/pglite.pid` for this process, or throws naming the live process that holds it. */
export function lockDataDir(dataDir: string): () => void {
  const lockFile = path.join(dataDir, "pglite.pid");
  const holder = existsSync(lockFile) ? readHolder(lockFile) : null;
  if (holder && holder.pid !== process.pid && holderAlive(holder)) {
    throw new Error(
      `${path.join(dataDir, "pglite")} is in use by process ${holder.pid} (a running local stack?). Stop it first, or use another DATA_DIR.`,
    );
  }
  const own = procStat(process.pid);
  writeFileSync(lockFile, own ? `${process.pid} ${own.startTime}\n` : `${process.pid}\n`);
  return () => rmSync(lockFile, { force: true });
}
