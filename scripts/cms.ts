/**
 * `npm run cms`: the content editor on an editor's own machine, no account needed. Starts the local
 * backend (scripts/cms-backend.ts: it reads and writes content/ and static/uploads/ in this folder,
 * for this run's token only) and Gatsby's development server, which serves the CMS at /admin/ and
 * shows every save on the site a moment later, new Effects included. It prints the editor's address
 * with the token; nothing else can use the backend.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { readNumberVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { startCmsBackend } from "./cms-backend.ts";

const ROOT = path.resolve(__dirname, "..");

/** The address `npm run cms` prints: the token rides in the fragment, which no server sees. */
export const editorAddress = (sitePort: number, backendPort: number, token: string) =>
  `http://localhost:${sitePort}/admin/#cms-backend=${backendPort}&cms-token=${token}`;

async function main(): Promise<void> {
  const sitePort = readNumberVariable(process.env, "PORT");
  const token = randomBytes(24).toString("base64url");
  const backend = await startCmsBackend({
    root: ROOT,
    token,
    port: readNumberVariable(process.env, "CMS_BACKEND_PORT"),
    siteOrigins: [`http://localhost:${sitePort}`, `http://127.0.0.1:${sitePort}`],
    log: (line) => console.log(`cms backend: ${line}`),
  });
  const gatsby = spawn(
    process.execPath,
    [require.resolve("gatsby/cli.js"), "develop", "--host", "localhost", "--port", String(sitePort)],
    {
      cwd: ROOT,
      // CMS_BACKEND_PORT: /admin/'s policy lets the page call the backend (gatsby-config.ts).
      env: { ...process.env, GATSBY_TELEMETRY_DISABLED: "1", CMS_BACKEND_PORT: String(backend.port) },
      stdio: "inherit",
    },
  );
  console.log(
    `\nContent editor, once Gatsby says it is ready (this address holds this run's key; keep it to yourself):\n\n  ${editorAddress(sitePort, backend.port, token)}\n\n` +
      `Saving writes content/ in ${ROOT}; the site at http://localhost:${sitePort}/ shows it a moment later.\n` +
      "Stop with Ctrl+C, then commit the changed files with git.\n",
  );
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    if (gatsby.exitCode === null) gatsby.kill("SIGTERM");
    void backend.close().finally(() => {
      process.exitCode = code;
    });
  };
  gatsby.on("exit", (code, signal) => {
    if (!stopping && code !== 0)
      console.error(`gatsby develop stopped (${signal ?? code}); stopping the editor.`);
    stop(code ?? 1);
  });
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
}

if (require.main === module)
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
