/**
 * A small git repository in a temporary folder, its files added to the index: what the checks
 * are tried on (the docs check and the one-writer-per-table check read `git ls-files`; the
 * import-cycle check reads the folder). The caller removes it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export function scratchRepository(files: Record<string, string>, prefix = "scratch-repository-"): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  execFileSync("git", ["init", "-q"], { cwd: root });
  execFileSync("git", ["add", "-A"], { cwd: root });
  return root;
}
