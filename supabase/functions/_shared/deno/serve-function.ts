/**
 * The Deno host of the newsletter functions: the core's one app (`app.ts`) served with
 * `Deno.serve(app.fetch)`; configuration from `Deno.env` (`parseFunctionEnvironment`: PostgreSQL,
 * SMTP, required secrets), the names in the mail from the site's sender.json, wired by `createNewsletter`, with mail
 * delivered after the answer through `EdgeRuntime.waitUntil`. Kept out of the portable core, and
 * out of `tsc` (it is checked by `deno check`), because it uses Deno's globals.
 */
import { Hono } from "hono";
import { createFunctionsApp } from "../app.ts";
import { requestLog } from "../http/request-log.ts";
import { configWarnings, parseFunctionEnvironment } from "../config.ts";
import { readVariable } from "../contract/variables.ts";
import { supabaseClientAddress } from "../http/client-address.ts";
import { createPostgresExecutor } from "../db/postgres-executor.ts";
import { consoleLogger, maskingLogger } from "../logger.ts";
import { createLogMailer } from "../mail/log-mailer.ts";
import { createSmtpMailer } from "../mail/smtp.ts";
import { createNewsletter, type NewsletterDeps } from "../newsletter.ts";
import { publishedIdentity, publishedLatestEdition } from "../effect-sending/edition-source.ts";

interface EdgeRuntimeGlobal {
  waitUntil(promise: Promise<unknown>): void;
}

/** Supabase's runtime keeps the worker alive for promises handed to `waitUntil`. */
const edgeRuntime = (globalThis as { EdgeRuntime?: EdgeRuntimeGlobal }).EdgeRuntime;

/** The newsletter as a Deno host wires it: the names in the mail and the welcome's Effect come from the site. */
export function newsletterFromSite(parts: Pick<NewsletterDeps, "db" | "mailer" | "config" | "log">) {
  return createNewsletter({
    ...parts,
    identity: publishedIdentity(parts.config.siteUrl),
    latestEdition: publishedLatestEdition(parts.config.siteUrl),
  });
}

/** Serves the three newsletter functions and mail-events; Supabase sends each entry only its own path. */
export function serveNewsletter(): void {
  const log = maskingLogger(consoleLogger);
  const env = Deno.env.toObject();
  const { config, smtpUrl, databaseUrl, port } = parseFunctionEnvironment(env);
  if (!readVariable(env, "SITE_URL"))
    log.warn(`SITE_URL is not set: links in mail point to ${config.siteUrl}`);
  for (const warning of configWarnings(config)) log.warn(warning);

  // A function instance serves one request at a time or a few; a small pool is enough. No
  // named prepared statements, so the URL may point at Supabase's transaction pooler too.
  const db = createPostgresExecutor(databaseUrl, { max: 3 });
  const mailer = smtpUrl ? createSmtpMailer(smtpUrl) : createLogMailer(log);
  const newsletter = newsletterFromSite({ db, mailer, config, log });
  // Functions have no timer of their own: retries ride on the next request's `waitUntil`.
  // Without EdgeRuntime (plain `deno run`) the promise simply runs on.
  const waitUntil = (work: Promise<unknown>) => edgeRuntime?.waitUntil(work);

  const options = port ? { port, hostname: "127.0.0.1" } : {};
  const app = createFunctionsApp(
    { newsletter, log, allowedOrigins: config.allowedOrigins },
    {
      clientAddress: (c) => {
        const { remoteAddr } = c.env as Deno.ServeHandlerInfo<Deno.NetAddr>;
        return supabaseClientAddress(
          c.req.raw.headers,
          remoteAddr.transport === "tcp" ? remoteAddr.hostname : "unknown",
        );
      },
      waitUntil,
    },
  );
  Deno.serve(options, new Hono().use(requestLog(log)).route("/", app).fetch);
}
