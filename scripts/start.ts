/**
 * `npm start`: builds the site when `public/index.html` is missing or older than any source
 * (src/, content/, static/, gatsby-*.ts), says which in one line, then starts the local stack.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT, parseLocalEnv } from "../server/local-env.ts";
import { main } from "../server/main.ts";
import { buildReason } from "./site-build.ts";

// No options: `util.parseArgs` refuses anything given, instead of ignoring a typo.
try {
  parseArgs({ args: process.argv.slice(2), options: {}, strict: true });
} catch (error) {
  console.error(
    `${error instanceof Error ? error.message : String(error)}\nUsage: npm start (settings come from the environment; see .env.example)`,
  );
  process.exit(2);
}

const reason = buildReason(ROOT, parseLocalEnv().publicDir);
if (reason) {
  console.log(`Building the site: ${reason}.`);
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/gatsby"), ["build"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (result.status !== 0) {
    console.error("The site did not build; see the messages above.");
    process.exit(result.status ?? 1);
  }
} else {
  console.log(
    "The site is up to date: public/ is newer than its sources (src/, content/, static/, the configuration).",
  );
}
void main();
