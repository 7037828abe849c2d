import { execFileSync } from "node:child_process";
import { buildReason } from "../../scripts/site-build";
import { ROOT } from "./stack";

/**
 * Builds the site (`npx gatsby build`) when `npm start` would: `public/` missing or older than a
 * source, or built for other Effects than `env` asks for (the browser tests build with their own).
 */
export function buildSiteIfStale(env: Record<string, string> = {}): void {
  const buildEnv = { ...process.env, ...env };
  const reason = buildReason(ROOT, undefined, buildEnv);
  if (!reason) return;
  console.log(`\nBuilding the site: ${reason} (npx gatsby build)...`);
  execFileSync("npx", ["gatsby", "build"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...buildEnv, GATSBY_TELEMETRY_DISABLED: "1" },
  });
}
