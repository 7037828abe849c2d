/**
 * The one place a mail transport is chosen, for every host. Each transport is a line of
 * TRANSPORTS: the variable that turns it on and how it is made. One set is used; two set is an
 * error at start that names both (which would the owner's mail take?). None set: the host's own
 * fallback (the local stack's outbox folder), else the log; where mail must really leave (hosted
 * Supabase, for a function that sends), none set is an error that names what to set.
 */
import { ConfigError, type Env, readVariable, type VariableName } from "../contract/variables.ts";
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

interface Transport {
  /** The variable whose value turns the transport on and says where mail goes. */
  variable: VariableName;
  create(value: string, options: MailerOptions): Mailer;
}

const TRANSPORTS: readonly Transport[] = [
  {
    variable: "SMTP_URL",
    create: (url, { connections }) =>
      createSmtpMailer(url, connections ? { pooled: { maxConnections: connections } } : {}),
  },
];

export function createMailer(env: Env, options: MailerOptions): Mailer {
  const configured = TRANSPORTS.flatMap((transport) => {
    const value = readVariable(env, transport.variable);
    return value ? [{ transport, value }] : [];
  });
  if (configured.length > 1)
    throw new ConfigError(
      `${configured.map(({ transport }) => transport.variable).join(" and ")} are both set: mail goes through one transport; unset all but one`,
    );
  const [chosen] = configured;
  if (chosen) return chosen.transport.create(chosen.value, options);
  if (options.required)
    throw new ConfigError(
      `${TRANSPORTS.map((transport) => transport.variable).join(" or ")} must be set on Supabase (supabase secrets set SMTP_URL=smtps://...:465); see docs/deploying.md`,
    );
  return options.fallback
    ? options.fallback(options.connections !== undefined)
    : createLogMailer(options.log);
}
