/**
 * `npm start`: builds the site when `public/index.html` is missing or a file it is built from
 * (src/, content/, static/, gatsby-*.ts, ...) was added, changed, deleted or renamed since the last
 * build (`site-build.ts`), says which in one line, then starts the local stack.
 * Settings come from the environment and, for what it leaves unset, from `.env` when there is one.
 */
import { parseArgs } from "node:util";
import { loadDotEnv, parseLocalEnv, ROOT } from "../server/local-env.ts";
import { main } from "../server/main.ts";
import { buildSiteIfStale } from "./site-build.ts";

// Settings in .env (copied from .env.example) apply unless the environment already sets them.
const dotEnv = loadDotEnv();
if (dotEnv) console.log(`settings: ${dotEnv} (the environment wins over it)`);
try {
  // No options: `util.parseArgs` refuses anything given instead of ignoring a typo.
  parseArgs({ args: process.argv.slice(2), options: {}, strict: true });
} catch (error) {
  console.error(
    `${error instanceof Error ? error.message : String(error)}\nUsage: npm start (settings come from the environment: see .env.example)`,
  );
  process.exit(2);
}
try {
  buildSiteIfStale(ROOT, parseLocalEnv().publicDir);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
void main();
