import { execFileSync } from "node:child_process";
import { buildReason } from "../../scripts/site-build";
import { ROOT } from "./stack";

/** Builds the site (`npx gatsby build`) when `npm start` would: `public/` missing or older than a source. */
export function buildSiteIfStale(): void {
  const reason = buildReason(ROOT);
  if (!reason) return;
  console.log(`\nBuilding the site: ${reason} (npx gatsby build)...`);
  execFileSync("npx", ["gatsby", "build"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, GATSBY_TELEMETRY_DISABLED: "1" },
  });
}
