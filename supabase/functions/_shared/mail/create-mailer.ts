/**
 * The one place a mail transport is chosen, for every host: SMTP when `SMTP_URL` is set, else the
 * host's own fallback (the local stack's outbox folder), else the log. Where mail must really leave
 * (hosted Supabase, for a function that sends), no transport is an error at start that names what
 * to set, never a quietly logged mail.
 */
import { ConfigError, type Env, readVariable } from "../contract/variables.ts";
import type { Logger } from "../logger.ts";
import { createLogMailer } from "./log-mailer.ts";
import type { Mailer } from "./mailer.ts";
import { createSmtpMailer } from "./smtp.ts";

export interface MailerOptions {
  log: Logger;
  /** The host's transport when none is configured (the outbox folder); `bulk` for the Effect's lists. */
  fallback?: (bulk: boolean) => Mailer;
  /** Mail must leave: no configured transport is a `ConfigError`. */
  required: boolean;
  /** Keep up to this many connections open (the Effect's lists). */
  connections?: number;
}

export function createMailer(env: Env, options: MailerOptions): Mailer {
  const smtpUrl = readVariable(env, "SMTP_URL");
  if (smtpUrl)
    return createSmtpMailer(
      smtpUrl,
      options.connections ? { pooled: { maxConnections: options.connections } } : {},
    );
  if (options.required)
    throw new ConfigError(
      "SMTP_URL must be set on Supabase (supabase secrets set SMTP_URL=smtps://...:465); see docs/deploying.md",
    );
  return options.fallback
    ? options.fallback(options.connections !== undefined)
    : createLogMailer(options.log);
}
