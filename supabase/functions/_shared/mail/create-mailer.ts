/**
 * The one place a mail transport is chosen, for every host, from the rows of TRANSPORTS
 * (`transports.ts`): the variable that turns one on and how it is made. One set is used; two set is an
 * error at start that names both (which would the owner's mail take?). None set: the host's own
 * fallback (the local stack's outbox folder), else the log; where mail must really leave (hosted
 * Supabase, for a function that sends), none set is an error that names what to set.
 */
import { ConfigError, type Env } from "../contract/variables.ts";
import { createLogMailer } from "./log-mailer.ts";
import type { Mailer } from "./mailer.ts";
import { checkNeeds, configuredTransports, type MailerOptions, TRANSPORTS } from "./transports.ts";

export function createMailer(env: Env, options: MailerOptions): Mailer {
  const configured = configuredTransports(env);
  if (configured.length > 1)
    throw new ConfigError(
      `${configured.map(({ transport }) => transport.variable).join(" and ")} are both set: mail goes through one transport; unset all but one`,
    );
  const [chosen] = configured;
  if (chosen) {
    checkNeeds(env, chosen.transport);
    return { ...chosen.transport.create(chosen.value, options, env), cpuCost: chosen.transport.cpuCost };
  }
  if (options.required)
    throw new ConfigError(
      `${TRANSPORTS.map((transport) => transport.variable).join(" or ")} must be set on Supabase (supabase secrets set ${TRANSPORTS.map((transport) => transport.example).join(", or ")}); see docs/deploying.md`,
    );
  return options.fallback
    ? options.fallback(options.connections !== undefined)
    : createLogMailer(options.log);
}
