/**
 * `npm start`: builds the site when `public/index.html` is missing or older than any source
 * (src/, content/, static/, gatsby-*.ts), says which in one line, then starts the local stack.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { main } from "../server/main.ts";
import { ROOT } from "../server/start-server.ts";
import { buildReason } from "./site-build.ts";

const reason = buildReason(ROOT, path.resolve(ROOT, process.env.PUBLIC_DIR?.trim() || "public"));
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
