/**
 * Whether the site needs a build: `public/index.html` missing, or older than a source file in
 * src/, content/, static/, a gatsby-*.ts file, the Tailwind and PostCSS configuration or the
 * installed dependencies' lock, and builds it then. Tests (`__tests__`) do not change the build.
 */
import { spawnSync } from "node:child_process";
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

/**
 * Builds the site (`gatsby build`) when `buildReason` gives one, saying why in one line: what
 * `npm start`, the browser tests and the benchmarks run before they serve `public/`. Throws when
 * the build fails (its own messages are already on the terminal).
 */
export function buildSiteIfStale(root = path.resolve(__dirname, ".."), publicDir?: string): void {
  const reason = buildReason(root, publicDir);
  if (!reason) {
    console.log(
      "The site is up to date: public/ is newer than its sources (src/, content/, static/, the configuration).",
    );
    return;
  }
  console.log(`Building the site: ${reason}.`);
  const result = spawnSync(path.join(root, "node_modules/.bin/gatsby"), ["build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, GATSBY_TELEMETRY_DISABLED: process.env.GATSBY_TELEMETRY_DISABLED ?? "1" },
  });
  if (result.status !== 0) throw new Error("The site did not build; see the messages above.");
}
