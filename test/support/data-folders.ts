/**
 * Folders in memory for the tests that write many files: 18,000 small files took 3.6 to 15.6 s to
 * write on this VM's ext4 and 0.4 to 0.5 s in its tmpfs (docs/testing.md).
 */
import { accessSync, constants, statfsSync } from "node:fs";
import { freemem, tmpdir } from "node:os";

/** Linux's shared-memory folder: usually a tmpfs (checked below), absent elsewhere. */
const SHARED_MEMORY = "/dev/shm";
/**
 * What it and the machine must have free: a run holds a dozen or so folders of 40 MB and more at
 * once, and a container's is often 64 MB (Docker's default).
 */
const SHARED_MEMORY_NEEDED = 4 * 1024 ** 3;
/** Linux's number for a tmpfs in statfs(2)'s `f_type`. */
const TMPFS_MAGIC = 0x01021994;

function memoryBacked(): boolean {
  // A temporary folder of the user's own choosing (TMPDIR) is kept.
  if (tmpdir() !== "/tmp") return false;
  try {
    const { type, bavail, bsize } = statfsSync(SHARED_MEMORY);
    if (type !== TMPFS_MAGIC) return false;
    accessSync(SHARED_MEMORY, constants.W_OK);
    return bavail * bsize >= SHARED_MEMORY_NEEDED && freemem() >= SHARED_MEMORY_NEEDED;
  } catch {
    return false;
  }
}

/**
 * Where the tests' PGlite folders (and their template, pglite-template.ts) and other folders of
 * many files go: Linux's tmpfs at /dev/shm when there is one with room and the temporary folder is
 * the default /tmp, else the temporary folder. A stack copies 1,042 files; on this project's ext4
 * that took 0.12 s of CPU, in memory 0.03 s, and PGlite's writes are cheaper there too. Only for
 * what Node opens: Deno asks for every permission for a path under /dev, so its hosts' folders stay
 * in the temporary folder.
 */
export const DATA_FOLDERS = memoryBacked() ? SHARED_MEMORY : tmpdir();
