/**
 * The Deno host of every Supabase entry: `serveFunction(name)` builds the backend with that
 * function's feature only (the manifest names it), so each function starts with its own settings
 * and no other's. Configuration from `Deno.env`, PostgreSQL from `SUPABASE_DB_URL` (set by
 * Supabase inside every function), the published site read over HTTP from `SITE_URL`, and work
 * after the answer kept alive by `EdgeRuntime.waitUntil`. Kept out of `tsc` (checked by
 * `deno check`) because it uses Deno's globals.
 */
import process from "node:process";
import { Hono } from "hono";
import { createBackend } from "../backend.ts";
import { ConfigError, readNumberVariable, readVariable } from "../contract/variables.ts";
import { createPostgresExecutor } from "../db/postgres-executor.ts";
import { publishedSite } from "../effect-sending/edition-source.ts";
import { supabaseClientAddress } from "../http/client-address.ts";
import { requestLog } from "../http/request-log.ts";
import { consoleLogger, maskingLogger } from "../logger.ts";
import { functionEntry, type FunctionName } from "../manifest.ts";

interface EdgeRuntimeGlobal {
  waitUntil(promise: Promise<unknown>): void;
}

/** Supabase's runtime keeps the worker alive for promises handed to `waitUntil`. */
const edgeRuntime = (globalThis as { EdgeRuntime?: EdgeRuntimeGlobal }).EdgeRuntime;

export function serveFunction(name: FunctionName): void {
  const entry = functionEntry(name);
  const log = maskingLogger(consoleLogger);
  const env = Deno.env.toObject();
  const databaseUrl = readVariable(env, "SUPABASE_DB_URL") ?? readVariable(env, "DATABASE_URL");
  if (!databaseUrl)
    throw new ConfigError("No database: SUPABASE_DB_URL (set by Supabase) or DATABASE_URL is required");
  // `FUNCTION_PORT`: plain `deno run` (the tests) listens on 127.0.0.1 there.
  const port = readNumberVariable(env, "FUNCTION_PORT", "optional");

  const backend = createBackend(env, {
    // A function instance serves one request at a time or a few; a small pool is enough. No
    // named prepared statements, so the URL may point at Supabase's transaction pooler too.
    db: createPostgresExecutor(databaseUrl, { max: 3 }),
    log,
    site: (config) => publishedSite(config.siteUrl),
    features: [entry.feature],
    senderName: () => `${name}:${crypto.randomUUID()}`,
    // Supabase stops a worker at 2 s of CPU: send-effect stops well before, between two batches.
    // The runtime counts the whole process, which may hold other workers too: the budget is then
    // spent sooner (fewer mails a call), never later. Without the call, wall time alone limits.
    cpuTime: cpuUsage(),
  });
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
  const options = port ? { port, hostname: "127.0.0.1" } : {};
  Deno.serve(options, new Hono().use(requestLog(log)).route("/", app).fetch);
}

/** The process's CPU in ms, or undefined where the runtime does not tell. */
function cpuUsage(): (() => number) | undefined {
  try {
    process.cpuUsage();
  } catch {
    return undefined;
  }
  return () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
}
