import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./stack";

/** The newest modification time under a folder, or 0 when it does not exist. */
function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the site (`npx gatsby build`) when `public/` is missing or older than src/, content/ or static/. */
export function buildSiteIfStale(): void {
  const built = path.join(ROOT, "public", "index.html");
  const sources = Math.max(...["src", "content", "static"].map((dir) => newestMtime(path.join(ROOT, dir))));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  console.log("\nBuilding the site (npx gatsby build)...");
  execFileSync("npx", ["gatsby", "build"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, GATSBY_TELEMETRY_DISABLED: "1" },
  });
}
