/**
 * Every way mail can leave, one row each: the variable that turns a transport on, the variables it
 * needs beside it, how it is made, what its sends cost in CPU, and what receivers look up in DNS
 * for the mail it sends. `createMailer` chooses a row from it; `npm run doctor` checks DNS by it
 * (`scripts/doctor-dns.ts`); `npm run config:docs` writes the transports' table in
 * docs/operating.md from it; and the transport tests run every row against its stand-in
 * (`test/support/transport-stand-ins.ts`). A new transport is its own file, a row here, its
 * variables in the registry (`contract/variables.ts`) and its stand-in.
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

/**
 * What receivers look up in DNS for mail a transport sends (RFC 7208 SPF on the envelope's domain,
 * RFC 6376 DKIM, the bounces' MX, reverse DNS): data for `npm run doctor`, which asks DNS.
 */
export interface SendingDns {
  /** How the doctor names it: `the SMTP server smtp.example.com`, `Resend`, `Amazon SES (eu-west-1)`. */
  name: string;
  /** Its name in the doctor's first line: `SMTP (smtp.example.com)`, `Resend`. */
  short: string;
  /**
   * The envelope's (Return-Path) domain, where receivers check SPF, given the From address's domain
   * and BOUNCE_ADDRESS's; or why it is not known and what to set.
   */
  envelopeDomain(
    fromDomain: string,
    bounceDomain: string | undefined,
  ): string | { unknown: string; fix: string };
  /** What the SPF record must name: an include (`amazonses.com`), or the SMTP server (its provider's include, or its IPs). */
  spf: { include: string } | { host: string };
  /** The MX the envelope's domain needs for the transport's bounces: a host ending, and the record to add at a domain. */
  bounceMx?: { hostEnding: string; fix(at: string): string };
  dkim: {
    /** The selectors it signs with when DKIM_SELECTOR is unset; none: not known. */
    selectors: readonly string[];
    /** What to set when the selector is not known. */
    unknownFix(domain: string): string;
    /** The record to add for a selector, when the provider's own page does not say it better. */
    record?(name: string, selector: string): string;
  };
  /** An SMTP server whose IPs need forward-confirmed reverse DNS. */
  reverseDnsHost?: string;
}

export interface Transport {
  /** The variable whose value turns the transport on and says where mail goes. */
  variable: VariableName;
  /** The variables it cannot work without, beside `variable`. */
  needs: readonly VariableName[];
  /** In a sentence of the docs: what it is. */
  about: string;
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
  /**
   * `value`: `variable`'s; `env`: the transport's other variables (credentials, an API's address),
   * those it `needs` already checked to be set.
   */
  create(value: string, options: MailerOptions, env: Env): Mailer;
  /** What DNS must hold for its mail; undefined when `value` cannot be read (the settings' check says why). */
  dns(value: string): SendingDns | undefined;
}

const UNKNOWN_SELECTOR = () =>
  "set DKIM_SELECTOR to the selector your provider signs with (the s= of a received mail's DKIM-Signature header)";

/** Where SPF is checked when the transport sends with our own envelope: BOUNCE_ADDRESS's domain, else the From's. */
const ownEnvelope = (fromDomain: string, bounceDomain: string | undefined) => bounceDomain ?? fromDomain;

const ROWS = [
  {
    variable: "SMTP_URL",
    needs: [],
    about: "any SMTP server (smtps:// on port 465 on Supabase)",
    example: "SMTP_URL=smtps://...:465",
    cpuCost: { perRequest: 0, perMail: 10.5, perKib: 1 },
    create: (url, { connections }) =>
      createSmtpMailer(url, connections ? { pooled: { maxConnections: connections } } : {}),
    dns: (url) => {
      let host: string;
      try {
        host = new URL(url).hostname.replace(/^\[|\]$/g, "");
      } catch {
        return undefined;
      }
      return {
        name: `the SMTP server ${host}`,
        short: `SMTP (${host})`,
        envelopeDomain: ownEnvelope,
        spf: { host },
        dkim: { selectors: [], unknownFix: UNKNOWN_SELECTOR },
        reverseDnsHost: host,
      };
    },
  },
  {
    variable: "RESEND_API_KEY",
    needs: [],
    about: "Resend's HTTP API, the Effect's lists 100 mails a request",
    example: "RESEND_API_KEY=re_...",
    // The twin counted 0.54 units a mail of 5.5 KiB on an Intel Xeon host and 1.11 on an AMD EPYC
    // one (2026-11-30): the calibration's work and JSON's scale apart across CPUs, so this is the
    // AMD count and 30 % more, shaped as the line measured on Intel.
    cpuCost: { perRequest: 20, perMail: 0.75, perKib: 0.09 },
    create: (apiKey, { pace }, env) => {
      const requestsPerSecond = readNumberVariable(env, "RESEND_REQUESTS_PER_SECOND");
      return createResendMailer({
        apiKey,
        apiUrl: readTextVariable(env, "RESEND_API_URL"),
        requestsPerSecond,
        pace: pace?.("resend", requestsPerSecond),
      });
    },
    dns: () => ({
      name: "Resend",
      short: "Resend",
      // Resend sends with `send.<domain>` as the envelope's domain (its domain page's SPF and MX).
      envelopeDomain: (fromDomain) => `send.${fromDomain}`,
      spf: { include: "amazonses.com" },
      bounceMx: {
        hostEnding: ".amazonses.com",
        fix: (at) => `add MX ${at} 10 feedback-smtp.<region>.amazonses.com, as Resend's domain page shows`,
      },
      dkim: { selectors: ["resend"], unknownFix: UNKNOWN_SELECTOR },
    }),
  },
  {
    variable: "SES_REGION",
    needs: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
    about: "Amazon SES's v2 API in that region",
    example: "SES_REGION=eu-west-1 AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...",
    cpuCost: { perRequest: 0, perMail: 6, perKib: 1.25 },
    create: (region, _options, env) =>
      createSesMailer({
        region,
        accessKeyId: readVariable(env, "AWS_ACCESS_KEY_ID") as string,
        secretAccessKey: readVariable(env, "AWS_SECRET_ACCESS_KEY") as string,
        sessionToken: readVariable(env, "AWS_SESSION_TOKEN"),
        apiUrl: readVariable(env, "SES_API_URL"),
      }),
    dns: (region) => ({
      name: `Amazon SES (${region})`,
      short: "Amazon SES",
      // SES's envelope is its own amazonses.com unless the identity has a custom MAIL FROM domain,
      // which only the SES console knows; BOUNCE_ADDRESS on it names it here.
      envelopeDomain: (fromDomain, bounceDomain) =>
        bounceDomain ?? {
          unknown:
            "which MAIL FROM domain SES sends with is not known, so SPF was not checked (without a custom one, SPF passes for amazonses.com only and DMARC rests on DKIM)",
          fix: `set a custom MAIL FROM domain in SES (e.g. mail.${fromDomain}: MX feedback-smtp.${region}.amazonses.com, TXT "v=spf1 include:amazonses.com ~all") and BOUNCE_ADDRESS to an address on it`,
        },
      spf: { include: "amazonses.com" },
      bounceMx: {
        hostEnding: ".amazonses.com",
        fix: (at) => `add MX ${at} 10 feedback-smtp.${region}.amazonses.com`,
      },
      dkim: {
        selectors: [],
        unknownFix: (domain) =>
          `Easy DKIM publishes three CNAMEs <token>._domainkey.${domain} -> <token>.dkim.amazonses.com: set DKIM_SELECTOR=token1,token2,token3 from the SES console's domain page`,
        record: (name, selector) => `add CNAME ${name} -> ${selector}.dkim.amazonses.com`,
      },
    }),
  },
] as const satisfies readonly Transport[];

/** Every transport, in the order `createMailer` names them. */
export const TRANSPORTS: readonly Transport[] = ROWS;

/** The value of `variable` in the row's `example` (`smtps://...:465`): what the docs and tests read the row with. */
export const exampleValue = (transport: Transport): string =>
  transport.example.split(" ")[0].slice(transport.variable.length + 1);

/** The variable of each transport: what the tests' table of stand-ins is keyed by, so a row without one does not compile. */
export type TransportVariable = (typeof ROWS)[number]["variable"];

/** The transports whose variable is set in `env`, with its value (more than one is an error at start). */
export const configuredTransports = (env: Env) =>
  TRANSPORTS.flatMap((transport) => {
    const value = readVariable(env, transport.variable);
    return value ? [{ transport, value }] : [];
  });

/** The variables `transport` needs beside its own, each set, or a `ConfigError` that names those that are not. */
export function checkNeeds(env: Env, transport: Transport): void {
  const missing = transport.needs.filter((name) => !readVariable(env, name));
  if (missing.length > 0)
    throw new ConfigError(
      `${transport.variable} is set but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not`,
    );
}
