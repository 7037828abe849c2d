/**
 * `npm run cms`: the content editor on an editor's own machine, no account needed. Starts Decap's
 * local backend (decap-server, which reads and writes content/ in this folder) and Gatsby's
 * development server, which serves the CMS at /admin/ and shows every save on the site at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { LOCAL_BACKEND_URL } from "../src/content/cms-config.ts";
import { readNumberVariable } from "../supabase/functions/_shared/config/variables.ts";

const ROOT = path.resolve(__dirname, "..");
const requireFromRoot = createRequire(path.join(ROOT, "package.json"));

/** How decap-server is started: the CMS finds it at LOCAL_BACKEND_URL when the page is on localhost. */
export function decapServerProcess(repoDir: string, port = Number(new URL(LOCAL_BACKEND_URL).port)) {
  return {
    command: process.execPath,
    args: [path.join(path.dirname(requireFromRoot.resolve("decap-server/package.json")), "dist", "index.js")],
    env: {
      ...process.env,
      // "fs": save straight into the files; the editor commits them (or not) with git as usual.
      MODE: "fs",
      GIT_REPO_DIRECTORY: repoDir,
      PORT: String(port),
      BIND_HOST: "127.0.0.1",
    },
  };
}

function main(): void {
  const sitePort = String(readNumberVariable(process.env, "PORT"));
  const decap = decapServerProcess(ROOT);
  const children: ChildProcess[] = [
    spawn(decap.command, decap.args, { cwd: ROOT, env: decap.env, stdio: "inherit" }),
    spawn(
      path.join(ROOT, "node_modules/.bin/gatsby"),
      ["develop", "--host", "localhost", "--port", sitePort],
      {
        cwd: ROOT,
        env: { ...process.env, GATSBY_TELEMETRY_DISABLED: "1" },
        stdio: "inherit",
      },
    ),
  ];
  console.log(
    `\nContent editor: http://localhost:${sitePort}/admin/ once Gatsby says it is ready.\n` +
      `Saving writes content/ in ${ROOT}; the site at http://localhost:${sitePort}/ shows it at once.\n` +
      "Stop with Ctrl+C, then commit the changed files with git.\n",
  );
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
    process.exitCode = code;
  };
  for (const child of children) {
    child.on("exit", (code, signal) => {
      if (!stopping && code !== 0)
        console.error(`${child.spawnfile} stopped (${signal ?? code}); stopping the other.`);
      stop(code ?? 1);
    });
  }
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
}

if (require.main === module) main();
