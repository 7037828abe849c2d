// What the build wrote beside an Effect's page, removed once that day is no longer published.
import { readdir, rm, rmdir } from "node:fs/promises";
import path from "node:path";

/**
 * Deletes `<effectsDir>/<day>/<fileName>` for every day not in `published`, and the day's folder if
 * nothing else is left in it (Gatsby removes the page of an Effect it no longer builds; an empty
 * folder would remain). A missing `effectsDir` is nothing to do.
 */
export async function removeUnpublishedDayFiles(
  effectsDir: string,
  published: ReadonlySet<string>,
  fileName: string,
): Promise<void> {
  let entries;
  try {
    entries = await readdir(effectsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || !/^\d{4}-\d{2}-\d{2}$/.test(entry.name) || published.has(entry.name))
      continue;
    const dir = path.join(effectsDir, entry.name);
    await rm(path.join(dir, fileName), { force: true });
    if ((await readdir(dir)).length === 0) await rmdir(dir);
  }
}
