// One thread of ./card-threads.ts: draws each card it is sent into the cache, and answers.
import { parentPort } from "node:worker_threads";
import type { CardAnswer, CardJob } from "./card-threads";
import { drawIntoCache, type CardContent } from "./cards";

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
