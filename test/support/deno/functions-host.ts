/**
 * The functions' Deno host for the contract suite (test/support/test-stack.ts, backend "Deno"):
 * the core's front door (`createBackend`) with every feature, served with `Deno.serve` and the same
 * request log as `supabase/functions/_shared/deno/serve.ts`, on the test's PostgreSQL, with three
 * things a test needs and Supabase does not have: the clock moved by the test (an offset in
 * `CLOCK_FILE`), the sender's identity given as JSON (`SENDER_IDENTITY`, the content's, read by the
 * test), and each mail written to `OUTBOX_DIR` so the suite reads it as it reads the local stack's.
 * Run by `deno run`, checked by `deno check` (not `tsc`: it uses Deno's globals).
 */
import process from "node:process";
import { Hono } from "hono";
import { createBackend } from "../../../supabase/functions/_shared/backend.ts";
import type { SenderIdentity } from "../../../supabase/functions/_shared/contract/published.ts";
import {
  readNumberVariable,
  readTextVariable,
} from "../../../supabase/functions/_shared/contract/variables.ts";
import { createPostgresExecutor } from "../../../supabase/functions/_shared/db/postgres-executor.ts";
import { publishedSite } from "../../../supabase/functions/_shared/effect-sending/edition-source.ts";
import { supabaseClientAddress } from "../../../supabase/functions/_shared/http/client-address.ts";
import { requestLog } from "../../../supabase/functions/_shared/http/request-log.ts";
import { consoleLogger, maskingLogger } from "../../../supabase/functions/_shared/logger.ts";
import { createOutboxMailer } from "../../../server/outbox-mailer.ts";

const log = maskingLogger(consoleLogger);
const env = Deno.env.toObject();
const clockFile = readTextVariable(env, "CLOCK_FILE");
const identity = JSON.parse(readTextVariable(env, "SENDER_IDENTITY")) as SenderIdentity;
const now = () => new Date(Date.now() + Number(Deno.readTextFileSync(clockFile) || "0"));
const outbox = readTextVariable(env, "OUTBOX_DIR");

const backend = createBackend(env, {
  db: createPostgresExecutor(readTextVariable(env, "DATABASE_URL"), { max: 3 }),
  log,
  site: (config) => ({ ...publishedSite(config.siteUrl), identity: async () => identity }),
  fallbackMailer: (bulk) => createOutboxMailer(outbox, bulk ? undefined : log),
  senderName: () => `test-host:${crypto.randomUUID()}`,
  now,
  cpuTime: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
});
const app = backend.functionsApp({
  clientAddress: (c) => {
    const { remoteAddr } = c.env as Deno.ServeHandlerInfo<Deno.NetAddr>;
    return supabaseClientAddress(c.req.raw.headers, remoteAddr.hostname);
  },
  // Plain `deno run` keeps the promise going by itself.
  waitUntil: () => undefined,
});
Deno.serve(
  { port: readNumberVariable(env, "FUNCTION_PORT"), hostname: "127.0.0.1" },
  new Hono().use(requestLog(log)).route("/functions/v1", app).fetch,
);
