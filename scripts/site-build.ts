/**
 * Whether the site needs a build: `public/index.html` missing, or older than a source file in
 * src/, content/, static/, a gatsby-*.ts file, the Tailwind and PostCSS configuration or the
 * installed dependencies' lock. Tests (`__tests__`) do not change the build.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

interface Newest {
  file: string;
  mtimeMs: number;
}

/** The most recently changed file under `target` (bounded depth; node_modules and dot folders skipped). */
function newest(target: string, depth = 0): Newest | null {
  if (!existsSync(target) || depth > 20) return null;
  const stats = statSync(target);
  if (stats.isFile()) return { file: target, mtimeMs: stats.mtimeMs };
  let best: Newest | null = null;
  for (const entry of readdirSync(target, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === "__tests__") continue;
    const found = newest(path.join(target, entry.name), depth + 1);
    if (found && (!best || found.mtimeMs > best.mtimeMs)) best = found;
  }
  return best;
}

export function buildReason(root: string, publicDir = path.join(root, "public")): string | null {
  const built = path.join(publicDir, "index.html");
  if (!existsSync(built)) return `${path.relative(root, built)} is missing`;
  const sources = [
    ...["src", "content", "static"].map((dir) => path.join(root, dir)),
    ...readdirSync(root)
      .filter((name) =>
        /^(gatsby-.*\.tsx?|tailwind\.config\.js|postcss\.config\.js|package-lock\.json)$/.test(name),
      )
      .map((name) => path.join(root, name)),
  ];
  const builtAt = statSync(built).mtimeMs;
  const changed = sources.map((source) => newest(source)).find((found) => found && found.mtimeMs > builtAt);
  return changed ? `${path.relative(root, changed.file)} changed since the last build` : null;
}
