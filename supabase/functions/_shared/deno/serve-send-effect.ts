/**
 * The Deno side of `send-effect`, served as the core's app (`app.ts`) with `Deno.serve(app.fetch)`:
 * configuration from `Deno.env`, PostgreSQL from `SUPABASE_DB_URL`,
 * the pooled SMTP mailer from `SMTP_URL` (required on hosted Supabase), and the key pg_cron
 * sends from `SEND_EFFECT_KEY`. Each call also delivers the mail queue's due jobs (Supabase has no
 * other clock). Checked by `deno check`, not `tsc`, like serve-function.ts.
 */
import { createFunctionsApp } from "../app.ts";
import { configWarnings, parseFunctionEnvironment } from "../config.ts";
import { createPostgresExecutor } from "../db/postgres-executor.ts";
import { createLogMailer } from "../mail/log-mailer.ts";
import { createSmtpMailer } from "../mail/smtp.ts";
import { publishedIdentity } from "../effect-sending/edition-source.ts";
import { newsletterFromSite } from "./serve-function.ts";
import { createSendEffectHandler } from "../effect-sending/send-effect-handler.ts";
import { parseSendingConfig } from "../effect-sending/sending-config.ts";
import { consoleLogger, maskingLogger } from "../logger.ts";

export function serveSendEffect(): void {
  const log = maskingLogger(consoleLogger);
  const env = Deno.env.toObject();
  const { config, smtpUrl, databaseUrl, port, sendEffect } = parseFunctionEnvironment(env);
  for (const warning of configWarnings(config)) log.warn(warning);
  const sending = parseSendingConfig(env);
  if (!sendEffect.key)
    log.error("SEND_EFFECT_KEY is not set: every call is refused (supabase secrets set SEND_EFFECT_KEY=...)");

  // Without SMTP_URL (a local `supabase functions serve`) mails are logged, not sent.
  const mailer = smtpUrl
    ? createSmtpMailer(smtpUrl, { pooled: { maxConnections: sending.maxConnections } })
    : createLogMailer(log);
  const db = createPostgresExecutor(databaseUrl, { max: 3 });
  const identity = publishedIdentity(config.siteUrl);
  const handler = createSendEffectHandler({
    db,
    config,
    identity,
    sending,
    mailer,
    log,
    key: sendEffect.key,
    // Supabase stops a call after 150 s (free plan); the next call comes a minute later.
    secondsPerCall: sendEffect.secondsPerCall,
    owner: `send-effect:${crypto.randomUUID()}`,
  });

  // The schedule's call each minute is also the mail queue's clock on Supabase, where nothing else
  // wakes up: a confirmation's retry, a reminder come due, a welcome waiting for the site.
  const newsletter = newsletterFromSite({ db, mailer, config, log });
  const edgeRuntime = (globalThis as { EdgeRuntime?: { waitUntil(work: Promise<unknown>): void } })
    .EdgeRuntime;
  const sendEffectThenMail = async (request: Request) => {
    const answer = await handler(request);
    const delivering = newsletter.deliverDue();
    if (edgeRuntime) edgeRuntime.waitUntil(delivering);
    return answer;
  };

  const options = port ? { port, hostname: "127.0.0.1" } : {};
  const app = createFunctionsApp(
    { sendEffect: sendEffectThenMail, log, allowedOrigins: [] },
    { clientAddress: () => "scheduler" },
  );
  Deno.serve(options, app.fetch);
}
