/**
 * The Deno side of a function: configuration from `Deno.env`, PostgreSQL from `SUPABASE_DB_URL`
 * (set by Supabase inside every function) or `DATABASE_URL`, SMTP from `SMTP_URL` (required on
 * hosted Supabase: see `parseFunctionEnvironment`), and mail delivered after the answer with
 * `EdgeRuntime.waitUntil`. Kept out of the portable core, and out of `tsc` (it is checked by
 * `deno check`), because it uses Deno's globals.
 */
import { configWarnings, parseFunctionEnvironment } from "../config.ts";
import { supabaseClientAddress } from "../client-address.ts";
import { createPostgresExecutor } from "../drivers/postgres-executor.ts";
import { createSmtpMailer } from "../drivers/smtp-mailer.ts";
import { createFunctionHandler, type FunctionName } from "../handler.ts";
import { createLogMailer } from "../log-mailer.ts";
import { consoleLogger, maskingLogger } from "../logger.ts";
import { createMailSender } from "../mail-sender.ts";
import { createSubscriberStore } from "../subscriber-store.ts";

interface EdgeRuntimeGlobal {
  waitUntil(promise: Promise<unknown>): void;
}

/** Supabase's runtime keeps the worker alive for promises handed to `waitUntil`. */
const edgeRuntime = (globalThis as { EdgeRuntime?: EdgeRuntimeGlobal }).EdgeRuntime;

export function serveFunction(name: FunctionName): void {
  const log = maskingLogger(consoleLogger);
  const env = Deno.env.toObject();
  const { config, smtpUrl } = parseFunctionEnvironment(env);
  if (!env.SITE_URL) log.warn(`SITE_URL is not set: links in mail point to ${config.siteUrl}`);
  for (const warning of configWarnings(config)) log.warn(warning);

  const databaseUrl = env.SUPABASE_DB_URL || env.DATABASE_URL;
  if (!databaseUrl)
    throw new Error("No database: SUPABASE_DB_URL (set by Supabase) or DATABASE_URL is required");
  // A function instance serves one request at a time or a few; a small pool is enough. No
  // named prepared statements, so the URL may point at Supabase's transaction pooler too.
  const store = createSubscriberStore(createPostgresExecutor(databaseUrl, { max: 3 }));
  const mailer = smtpUrl ? createSmtpMailer(smtpUrl) : createLogMailer(log);
  const sender = createMailSender({ store, mailer, config, log });
  const handler = createFunctionHandler(name, { store, config, log });

  // Any call also delivers due mail (new ones and retries), after its answer: functions have no
  // timer of their own, so retries ride on the next request.
  const afterAnswer = (work: Promise<void>) => {
    if (edgeRuntime) edgeRuntime.waitUntil(work);
  };

  const port = Number(env.FUNCTION_PORT);
  const options = Number.isInteger(port) && port > 0 ? { port, hostname: "127.0.0.1" } : {};
  Deno.serve(options, async (request, info) => {
    const remote = info.remoteAddr.transport === "tcp" ? info.remoteAddr.hostname : "unknown";
    const response = await handler(request, {
      clientAddress: supabaseClientAddress(request.headers, remote),
    });
    const delivery = sender.deliverDue();
    afterAnswer(delivery);
    return response;
  });
}
