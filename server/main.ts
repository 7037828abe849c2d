/**
 * `npm run serve`: the local stack on the last build. Prints `Listening on http://localhost:PORT`
 * once it takes requests; SIGINT or SIGTERM finish the requests and mail in flight, then exit.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { loadDotEnv, parseLocalEnv } from "./local-env.ts";
import { startServer } from "./start-server.ts";
import { stdoutLogger } from "./stdout-logger.ts";

export async function main(): Promise<void> {
  let publicDir: string;
  try {
    publicDir = parseLocalEnv().publicDir;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  if (!existsSync(path.join(publicDir, "index.html"))) {
    console.error(
      `No built site in ${publicDir}: run \`npm run build\` first, or \`npm start\`, which builds when needed.`,
    );
    process.exit(1);
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer();
  } catch (error) {
    console.error(
      `The local stack could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
  console.log(`Listening on ${server.url}`);
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      stdoutLogger.warn(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stdoutLogger.info(`${signal}: finishing requests and mail in flight...`);
    server.close().then(
      () => {
        stdoutLogger.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        stdoutLogger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (require.main === module) {
  loadDotEnv();
  void main();
}
