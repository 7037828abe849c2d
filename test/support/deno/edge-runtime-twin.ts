/**
 * The runtime twin: what Supabase's Edge Runtime gives a function that plain `deno run` does not,
 * or gives differently, as far as our code meets it. Run it with the entry to serve as its
 * argument, on the Deno the runtime embeds (runtimes.ts, `edge`):
 *
 *     deno run ... test/support/deno/edge-runtime-twin.ts supabase/functions/send-effect/index.ts
 *
 * Read in supabase/edge-runtime at b1edf453 (2026-11); each point links its source there.
 *
 * - `process.cpuUsage()` prints "Not implemented" and returns zeros
 *   (https://github.com/supabase/edge-runtime/blob/b1edf453/ext/node/polyfills/process.ts). Deno 2.1.4's own polyfill does the same; the twin
 *   says it again so the rule holds on any Deno it runs on.
 * - `EdgeRuntime.waitUntil(promise)` keeps the worker alive for work after the answer
 *   (https://github.com/supabase/edge-runtime/blob/b1edf453/ext/runtime/js/namespaces.js); the worker drops only once those promises and every
 *   request are done.
 * - The `beforeunload` event, a `CustomEvent` whose `detail.reason` says why the worker is about to
 *   stop: "cpu", "memory", "wall_clock", "early_drop" or "termination"
 *   (https://github.com/supabase/edge-runtime/blob/b1edf453/ext/runtime/js/bootstrap.js, `dispatchBeforeUnloadEvent`).
 * - Retirement: a worker past its CPU soft limit or half its wall clock takes no new request, and is
 *   dropped once idle, after `beforeunload` with "early_drop"
 *   (https://github.com/supabase/edge-runtime/blob/b1edf453/crates/base/src/worker/supervisor/strategy_per_worker.rs).
 *
 * The supervisor's side (counting the worker's CPU, the limits) is the gateway stand-in's
 * (../supabase-gateway.ts); it reaches the twin through two paths the twin answers before the
 * function's own handler: `POST /_edge-runtime/beforeunload?reason=...` and
 * `POST /_edge-runtime/retire`.
 */
import process from "node:process";

export const CONTROL_PATH = "/_edge-runtime";

// The runtime's polyfill, word for word in what it prints and returns.
process.cpuUsage = (() => {
  console.warn("Warning: Not implemented: process.cpuUsage()");
  return { user: 0, system: 0 };
}) as typeof process.cpuUsage;

const background = new Set<Promise<unknown>>();
let inFlight = 0;
let retired = false;

function dispatchBeforeUnload(reason: string): void {
  globalThis.dispatchEvent(new CustomEvent("beforeunload", { cancelable: true, detail: { reason } }));
}

/** Once retired, the worker goes when nothing is left to do: no request, no background promise. */
function dropIfIdle(): void {
  if (!retired || inFlight > 0 || background.size > 0) return;
  dispatchBeforeUnload("early_drop");
  // The event's listeners run synchronously; give what they started one turn, as the runtime's
  // interrupt does, then end the worker.
  setTimeout(() => Deno.exit(0), 0);
}

Object.defineProperty(globalThis, "EdgeRuntime", {
  value: {
    waitUntil(promise: Promise<unknown>): void {
      const tracked = Promise.resolve(promise).catch(() => undefined);
      background.add(tracked);
      void tracked.finally(() => {
        background.delete(tracked);
        dropIfIdle();
      });
    },
  },
  configurable: true,
});

type Handler = (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response>;

async function control(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === `${CONTROL_PATH}/beforeunload`) {
    dispatchBeforeUnload(url.searchParams.get("reason") ?? "termination");
    return new Response(null, { status: 204 });
  }
  if (url.pathname === `${CONTROL_PATH}/retire`) {
    retired = true;
    queueMicrotask(dropIfIdle);
    return new Response(null, { status: 204 });
  }
  return new Response(null, { status: 404 });
}

const serve = Deno.serve.bind(Deno) as (options: Deno.ServeTcpOptions, handler: Handler) => Deno.HttpServer;
// The entries call `Deno.serve(options, handler)`; the twin counts requests in flight around the
// handler and answers its own paths first.
(Deno as { serve: unknown }).serve = (options: Deno.ServeTcpOptions, handler: Handler) =>
  serve(options, async (request, info) => {
    if (new URL(request.url).pathname.startsWith(`${CONTROL_PATH}/`)) return control(request);
    inFlight += 1;
    try {
      return await handler(request, info);
    } finally {
      inFlight -= 1;
      queueMicrotask(dropIfIdle);
    }
  });

const entry = Deno.args[0];
if (!entry)
  throw new Error(
    "edge-runtime-twin.ts: name the entry to serve, e.g. supabase/functions/send-effect/index.ts",
  );
await import(new URL(entry, `file://${Deno.cwd()}/`).href);
