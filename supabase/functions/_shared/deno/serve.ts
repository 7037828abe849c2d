/**
 * The Deno host of every Supabase entry: `serveFunction(name)` builds the backend with that
 * function's feature only (the manifest names it), so each function starts with its own settings
 * and no other's. Configuration from `Deno.env`, PostgreSQL from `SUPABASE_DB_URL` (set by
 * Supabase inside every function), the published site read over HTTP from `SITE_URL`, and work
 * after the answer kept alive by `EdgeRuntime.waitUntil`. The tests' Deno host serves through
 * `serveBackend` too, with what a test needs added. Kept out of `tsc` (checked by `deno check`)
 * because it uses Deno's globals.
 *
 * What Supabase's Edge Runtime does to a worker (supabase/edge-runtime, strategy_per_worker.rs):
 * it counts the CPU of the worker's JavaScript thread across every request, retires the worker at
 * 1 s and stops it at 2 s; it has no CPU clock to read (`process.cpuUsage()` answers zeros), so the
 * worker counts its own (`cpu-clock.ts`); and it sends `beforeunload` before it stops a worker, on
 * which the worker claims no more work.
 */
import process from "node:process";
import { Hono } from "hono";
import { type BackendHost, createBackend } from "../backend.ts";
import {
  ConfigError,
  type Env,
  parseUrlSetting,
  readNumberVariable,
  readVariable,
  URL_CREDENTIALS_HINT,
} from "../contract/variables.ts";
import { cpuClock } from "../cpu-clock.ts";
import { createPostgresExecutor } from "../db/postgres-executor.ts";
import { publishedSite } from "../effect-sending/edition-source.ts";
import { supabaseClientAddress } from "../http/client-address.ts";
import { requestLog } from "../http/request-log.ts";
import { consoleLogger, maskingLogger } from "../logger.ts";
import { FEATURES, functionEntry, type FunctionName } from "../manifest.ts";

interface EdgeRuntimeGlobal {
  waitUntil(promise: Promise<unknown>): void;
}

/** Supabase's runtime keeps the worker alive for promises handed to `waitUntil`. */
const edgeRuntime = (globalThis as { EdgeRuntime?: EdgeRuntimeGlobal }).EdgeRuntime;

/** What a Deno host brings beyond the environment: a test's host adds its clock, outbox and names. */
export type DenoHostOptions = Partial<Omit<BackendHost, "db" | "log" | "cpu" | "stopping">> & {
  /** Where the app is mounted: "/" on Supabase (the function's path), "/functions/v1" for the tests' host. */
  mount?: string;
  /** The database URL when SUPABASE_DB_URL is not set. */
  databaseUrl?: string;
};

export function serveFunction(name: FunctionName): void {
  const entry = functionEntry(name);
  serveBackend(Deno.env.toObject(), {
    features: [entry.feature],
    senderName: () => `${name}:${crypto.randomUUID()}`,
  });
}

/** Serves the core's app on Deno with the worker's CPU clock and `beforeunload` wired in. */
export function serveBackend(env: Env, options: DenoHostOptions): void {
  // First, before any work: the time the worker took to start is part of its CPU. Only where the
  // platform limits it: Supabase's runtime (it announces itself with `EdgeRuntime`); plain
  // `deno run` stops no worker.
  const cpu = edgeRuntime ? cpuClock({ processCpu: processCpuMs, now: () => performance.now() }) : undefined;
  const log = maskingLogger(consoleLogger);
  const stop = new AbortController();
  // The runtime's word that it is about to stop the worker, and why (Supabase's background tasks
  // guide): finish what is in hand and claim nothing more.
  addEventListener("beforeunload", (event) => {
    const reason = (event as CustomEvent<{ reason?: string } | null>).detail?.reason ?? "unknown";
    if (!stop.signal.aborted) log.warn(`the worker is about to stop (${reason}): no more work is claimed`);
    stop.abort(reason);
  });
  const databaseSetting = readVariable(env, "SUPABASE_DB_URL") ? "SUPABASE_DB_URL" : "DATABASE_URL";
  const databaseUrl = readVariable(env, databaseSetting) ?? options.databaseUrl;
  if (!databaseUrl)
    throw new ConfigError("No database: SUPABASE_DB_URL (set by Supabase) or DATABASE_URL is required");
  // Checked here, not by the driver, whose URL error repeats the URL and its password.
  parseUrlSetting(
    databaseSetting,
    databaseUrl,
    `it must be a postgresql:// URL, where ${URL_CREDENTIALS_HINT}`,
  );
  // `FUNCTION_PORT`: plain `deno run` (the tests) listens on 127.0.0.1 there.
  const port = readNumberVariable(env, "FUNCTION_PORT", "optional");

  const backend = createBackend(env, {
    // A function instance serves one request at a time or a few; a small pool is enough. No
    // named prepared statements, so the URL may point at Supabase's transaction pooler too.
    db: createPostgresExecutor(databaseUrl, { max: 3 }),
    log,
    site: (config) => publishedSite(config.siteUrl),
    features: FEATURES,
    senderName: () => `deno:${crypto.randomUUID()}`,
    ...options,
    cpu,
    stopping: stop.signal,
  });
  if (cpu?.kind === "estimate")
    log.info("no CPU clock in this runtime: the worker counts its CPU from the work it does");
  const app = backend.functionsApp({
    clientAddress: (c) => {
      const { remoteAddr } = c.env as Deno.ServeHandlerInfo<Deno.NetAddr>;
      return supabaseClientAddress(
        c.req.raw.headers,
        remoteAddr.transport === "tcp" ? remoteAddr.hostname : "unknown",
      );
    },
    // Functions have no timer of their own: retries ride on the next request's `waitUntil`.
    // Without EdgeRuntime (plain `deno run`) the promise simply runs on.
    waitUntil: (work) => edgeRuntime?.waitUntil(work),
  });
  const server = new Hono()
    .use(async (_c, next) => {
      cpu?.charge({ kind: "request" });
      await next();
    })
    .use(requestLog(log))
    .route(options.mount ?? "/", app);
  Deno.serve(port ? { port, hostname: "127.0.0.1" } : {}, server.fetch);
}

/** The process's CPU in ms, as the runtime reports it (Supabase's: always zero). */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
