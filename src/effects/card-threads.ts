/**
 * The social cards drawn on worker threads, one a core: drawing a card is CPU work in JavaScript
 * (satori, the palette) and in resvg, all on the thread that asks for it. Each thread runs
 * ./card-worker.ts and is sent one card at a time; the threads end when the cards do.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";

/** A card to draw (what ./card-layout.ts draws), and the cache file it goes to. */
export interface CardJob<Content = unknown> {
  content: Content;
  file: string;
}

/** What a thread answers for each card: nothing, or why it could not draw it. */
export type CardAnswer = { error?: string };

// Gatsby bundles gatsby-node.ts and its imports, so this file has no folder of its own at run
// time: the worker's module is found from the project, and run by tsx as the scripts are.
const WORKER = path.resolve("src", "effects", "card-worker.ts");
const TSX = createRequire(path.resolve("package.json")).resolve("tsx/cjs/api");
const BOOT = `require(${JSON.stringify(TSX)}).register(); require(${JSON.stringify(WORKER)});`;

/**
 * Draws `jobs` into their cache files on `threads` threads; one promise a job, settled when its
 * card is there or could not be drawn. A thread that fails ends the drawing: its card and those
 * not yet begun are rejected with its error.
 */
export function drawOnThreads(jobs: readonly CardJob[], threads: number): Promise<void>[] {
  const settlers: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const promises = jobs.map(() => new Promise<void>((resolve, reject) => settlers.push({ resolve, reject })));
  let next = 0;
  const failAll = (error: Error) => {
    for (; next < jobs.length; next++) settlers[next].reject(error);
  };
  const startThread = () => {
    const worker = new Worker(BOOT, { eval: true });
    let current = -1;
    let done = false;
    const sendNext = () => {
      if (next >= jobs.length) {
        done = true;
        void worker.terminate();
        return;
      }
      current = next++;
      worker.postMessage(jobs[current]);
    };
    worker.on("message", ({ error }: CardAnswer) => {
      if (error) settlers[current].reject(new Error(error));
      else settlers[current].resolve();
      sendNext();
    });
    worker.on("error", (error) => {
      if (current >= 0) settlers[current].reject(error);
      failAll(error);
    });
    // Settling a promise twice does nothing: an error's card and the rest are already rejected.
    worker.on("exit", (code) => {
      if (done) return;
      const error = new Error(`a card-drawing thread stopped (exit code ${code})`);
      if (current >= 0) settlers[current].reject(error);
      failAll(error);
    });
    sendNext();
  };
  for (let thread = 0; thread < Math.min(threads, jobs.length); thread++) startThread();
  return promises;
}
