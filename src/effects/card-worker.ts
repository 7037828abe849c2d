// One thread of ./card-threads.ts: draws each card it is sent into the cache, and answers.
import { constants, setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import type { CardAnswer, CardJob } from "./card-threads";
import { drawIntoCache } from "./card-cache";
import type { CardContent } from "./card-layout";

// The cards are drawn while Gatsby builds the pages, and take only the CPU time the build leaves
// idle: on Linux each thread has a priority of its own, and this one asks for the lowest. A cold
// build of 3,650 Effects on 2 cores took 67.7-77.0 s against 78.0-90.0 s (four pairs, 2026-11-27).
// Elsewhere the same call lowers the whole process, Gatsby's build with it, so it is left out.
if (process.platform === "linux") setPriority(constants.priority.PRIORITY_LOW);
const port = parentPort;
if (!port) throw new Error("card-worker.ts runs as a worker thread of card-threads.ts");
port.on("message", ({ content, file }: CardJob<CardContent>) => {
  drawIntoCache(content, file).then(
    () => port.postMessage({} satisfies CardAnswer),
    (error: unknown) =>
      port.postMessage({
        error: error instanceof Error ? error.message : String(error),
      } satisfies CardAnswer),
  );
});
