/**
 * The one place a mail transport is chosen, for every host. Each transport is a line of
 * TRANSPORTS: the variable that turns it on and how it is made. One set is used; two set is an
 * error at start that names both (which would the owner's mail take?). None set: the host's own
 * fallback (the local stack's outbox folder), else the log; where mail must really leave (hosted
 * Supabase, for a function that sends), none set is an error that names what to set.
 */
import {
  ConfigError,
  type Env,
  readNumberVariable,
  readTextVariable,
  readVariable,
  type VariableName,
} from "../contract/variables.ts";
import type { MailCost } from "../cpu-clock.ts";
import type { Logger } from "../logger.ts";
import { createLogMailer } from "./log-mailer.ts";
import type { Mailer } from "./mailer.ts";
import { createResendMailer } from "./resend.ts";
import type { PaceFactory } from "./shared-pace.ts";
import { createSesMailer } from "./ses-mailer.ts";
import { createSmtpMailer } from "./smtp.ts";

export interface MailerOptions {
  log: Logger;
  /** The host's transport when none is configured (the outbox folder); `bulk` for the Effect's lists. */
  fallback?: (bulk: boolean) => Mailer;
  /** Mail must leave: no configured transport is a `ConfigError`. */
  required: boolean;
  /** Keep up to this many connections open (the Effect's lists). */
  connections?: number;
  /** An API account's request pace shared by every process (the database's); else per process. */
  pace?: PaceFactory;
}

interface Transport {
  /** The variable whose value turns the transport on and says where mail goes. */
  variable: VariableName;
  /**
   * Its CPU per request, mail and KiB (cpu-clock.ts units): the line through what the runtime twin
   * counted for editions of 0.6, 5.5 and 11 KiB on a quiet machine (`npm run bench:send-effect-cpu`
   * prints the units a mail), and 30 % more, for a unit timed short. Where the worker has no CPU
   * clock (Supabase), its sends are counted with these; the bench checks that its count stays
   * above the gateway's.
   */
  cpuCost: MailCost;
  /** How to set it on Supabase, for the error when none is: `SMTP_URL=smtps://...:465`. */
  example: string;
  /** `env`: the transport's other variables (credentials, an API's address). */
  create(value: string, options: MailerOptions, env: Env): Mailer;
}

/** The variables a transport cannot work without, beside the one that turns it on. */
function required(env: Env, transport: VariableName, names: readonly VariableName[]): string[] {
  const missing = names.filter((name) => !readVariable(env, name));
  if (missing.length > 0)
    throw new ConfigError(
      `${transport} is set but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not`,
    );
  return names.map((name) => readVariable(env, name) as string);
}

const TRANSPORTS: readonly Transport[] = [
  {
    variable: "SMTP_URL",
    example: "SMTP_URL=smtps://...:465",
    cpuCost: { perRequest: 0, perMail: 10.5, perKib: 1 },
    create: (url, { connections }) =>
      createSmtpMailer(url, connections ? { pooled: { maxConnections: connections } } : {}),
  },
  {
    variable: "RESEND_API_KEY",
    example: "RESEND_API_KEY=re_...",
    cpuCost: { perRequest: 8, perMail: 0.22, perKib: 0.03 },
    create: (apiKey, { pace }, env) => {
      const requestsPerSecond = readNumberVariable(env, "RESEND_REQUESTS_PER_SECOND");
      return createResendMailer({
        apiKey,
        apiUrl: readTextVariable(env, "RESEND_API_URL"),
        requestsPerSecond,
        pace: pace?.("resend", requestsPerSecond),
      });
    },
  },
  {
    variable: "SES_REGION",
    example: "SES_REGION=eu-west-1 AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...",
    cpuCost: { perRequest: 0, perMail: 6, perKib: 1.25 },
    create: (region, _options, env) => {
      const [accessKeyId, secretAccessKey] = required(env, "SES_REGION", [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
      ]);
      return createSesMailer({
        region,
        accessKeyId,
        secretAccessKey,
        sessionToken: readVariable(env, "AWS_SESSION_TOKEN"),
        apiUrl: readVariable(env, "SES_API_URL"),
      });
    },
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
  if (chosen)
    return { ...chosen.transport.create(chosen.value, options, env), cpuCost: chosen.transport.cpuCost };
  if (options.required)
    throw new ConfigError(
      `${TRANSPORTS.map((transport) => transport.variable).join(" or ")} must be set on Supabase (supabase secrets set ${TRANSPORTS.map((transport) => transport.example).join(", or ")}); see docs/deploying.md`,
    );
  return options.fallback
    ? options.fallback(options.connections !== undefined)
    : createLogMailer(options.log);
}
