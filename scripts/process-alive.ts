/** Whether the process `pid` runs (EPERM: it does, as another user's): what a lock file's holder is checked with. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
