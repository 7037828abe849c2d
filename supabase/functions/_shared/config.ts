/**
 * The functions' configuration, parsed from a plain record of environment variables (Deno's
 * `Deno.env.toObject()`, Node's `process.env`) through the one registry, `contract/variables.ts`,
 * which says each variable's default, range and purpose. A value that is set but unusable is an
 * error at start, never a silent default. The names and time zone in the mail are not
 * configuration: they come from the content (`published.ts`, `SenderIdentity`).
 */
import {
  ConfigError,
  type Env,
  parseUrlSetting,
  readNumberVariable,
  readVariable,
  type VariableName,
} from "./contract/variables.ts";
import { type BounceSettings, parseBounceAddress } from "./mail/bounce-token.ts";
import { type Mailbox, parseMailbox } from "./mail/mailbox.ts";
import { resendSecretKey } from "./mail-events/resend.ts";

export { ConfigError, type Env };

export interface Config {
  /** Where the links in mail point: `${siteUrl}/?confirm=TOKEN`. No trailing slash. */
  siteUrl: string;
  /** The functions' base URL, for the one-click `List-Unsubscribe` header. No trailing slash. */
  functionsUrl: string;
  /** Origins allowed to call the functions from a browser (CORS). */
  allowedOrigins: string[];
  /** `MAIL_FROM`, one mailbox; unset: the newsletter's name at the site's host (`mail/list-headers.ts`). */
  mailFrom?: Mailbox;
  /**
   * `BOUNCE_ADDRESS` with its keys (`BOUNCE_TOKEN_KEY`, `BOUNCE_TOKEN_PREVIOUS_KEY`): the envelope
   * sender of every mail to a subscriber over SMTP is `bounces+<token>@…` (`mail/bounce-token.ts`);
   * null while it is unset.
   */
  bounce: BounceSettings | null;
  rateLimitPerMinute: number;
  linkRateLimitPerMinute: number;
  resendCooldownSeconds: number;
  /** Confirmation mails to one mailbox per UTC day (`ann+1@` and `Ann+2@` are one mailbox). */
  confirmationMailsPerDay: number;
  confirmationMailsPerClientPerDay: number;
  confirmTokenTtlHours: number;
  purgePendingAfterDays: number;
  maxBodyBytes: number;
  /** First retry delay of a failed mail; doubles per attempt up to `mailRetryMaxSeconds`. */
  mailRetryBaseSeconds: number;
  mailRetryMaxSeconds: number;
  /** The mail-events function's sources; each is off while its setting is unset. */
  mailEvents: MailEventsConfig;
  /** The content editor's GitHub sign-in (`cms-auth`); null while its OAuth App is not set. */
  cmsAuth: CmsAuthConfig | null;
}

/** The GitHub OAuth App behind `cms-auth` (`cms-auth/cms-auth.ts`). */
export interface CmsAuthConfig {
  clientId: string;
  clientSecret: string;
  /** `CMS_GITHUB_URL`: GitHub's web address (authorize and token exchange), no trailing slash. */
  githubUrl: string;
}

/** What each mail-events source needs (`mail-events/receive.ts`). */
export interface MailEventsConfig {
  /** `RESEND_WEBHOOK_SECRET`, `whsec_…`. */
  resendSecret: string | null;
  /** `SES_TOPIC_ARN`: the SNS topics whose messages are accepted. */
  sesTopicArns: string[];
  /** `DSN_WEBHOOK_SECRET`: the bearer secret of the inbound-mail route. */
  dsnSecret: string | null;
  /** The bounce address and its keys: `dsn` acts only on reports carrying one of its tokens. */
  bounce: BounceSettings | null;
  /** `SNS_ALLOW_SIGNATURE_V1=1`: SNS's SHA1 signatures are accepted too (else only SignatureVersion 2). */
  snsAllowSignatureV1: boolean;
}

const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const MIN_DSN_SECRET_LENGTH = 32;

function readMailEvents(env: Env): MailEventsConfig {
  const resendSecret = readVariable(env, "RESEND_WEBHOOK_SECRET") ?? null;
  if (resendSecret !== null && !resendSecretKey(resendSecret))
    throw new ConfigError(
      "RESEND_WEBHOOK_SECRET must be the signing secret Resend shows for the webhook: whsec_ followed by base64",
    );
  const sesTopicArns = (readVariable(env, "SES_TOPIC_ARN") ?? "")
    .split(",")
    .map((arn) => arn.trim())
    .filter(Boolean);
  sesTopicArns.forEach((arn, index) => {
    if (!TOPIC_ARN.test(arn))
      throw new ConfigError(
        `SES_TOPIC_ARN's ${ordinal(index)} entry is not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)`,
      );
  });
  const dsnSecret = readVariable(env, "DSN_WEBHOOK_SECRET") ?? null;
  if (dsnSecret !== null && dsnSecret.length < MIN_DSN_SECRET_LENGTH)
    throw new ConfigError(
      `DSN_WEBHOOK_SECRET must be at least ${MIN_DSN_SECRET_LENGTH} characters (openssl rand -hex 32 makes one)`,
    );
  const allowV1 = readVariable(env, "SNS_ALLOW_SIGNATURE_V1");
  if (allowV1 !== undefined && allowV1 !== "1" && allowV1 !== "0")
    throw new ConfigError("SNS_ALLOW_SIGNATURE_V1 must be 1 or 0");
  return {
    resendSecret,
    sesTopicArns,
    dsnSecret,
    bounce: readBounce(env, dsnSecret),
    snsAllowSignatureV1: allowV1 === "1",
  };
}

/** A key of the bounce tokens (`mail/bounce-token.ts`), checked like the dsn route's secret. */
function readTokenKey(
  env: Env,
  name: "BOUNCE_TOKEN_KEY" | "BOUNCE_TOKEN_PREVIOUS_KEY",
  dsnSecret: string | null,
) {
  const key = readVariable(env, name) ?? null;
  if (key !== null && key.length < MIN_DSN_SECRET_LENGTH)
    throw new ConfigError(
      `${name} must be at least ${MIN_DSN_SECRET_LENGTH} characters (openssl rand -hex 32 makes one)`,
    );
  // Its own key, so that a new bearer secret for the inbound route leaves the tokens of mail
  // already sent valid, and one leaked secret is not both.
  if (key !== null && key === dsnSecret)
    throw new ConfigError(`${name} must not be DSN_WEBHOOK_SECRET: give the tokens a key of their own`);
  return key;
}

function readBounce(env: Env, dsnSecret: string | null): BounceSettings | null {
  const key = readTokenKey(env, "BOUNCE_TOKEN_KEY", dsnSecret);
  const previousKey = readTokenKey(env, "BOUNCE_TOKEN_PREVIOUS_KEY", dsnSecret);
  const value = readVariable(env, "BOUNCE_ADDRESS");
  if (value === undefined) {
    if (previousKey !== null && key === null)
      throw new ConfigError(
        "BOUNCE_TOKEN_PREVIOUS_KEY is set but BOUNCE_TOKEN_KEY is not: it only reads tokens beside a key",
      );
    return null;
  }
  const parsed = parseBounceAddress(value);
  if (typeof parsed === "string") throw new ConfigError(`BOUNCE_ADDRESS: ${parsed}`);
  if (dsnSecret === null)
    throw new ConfigError(
      "BOUNCE_ADDRESS is set but DSN_WEBHOOK_SECRET is not: what comes back to the bounce address reaches mail-events/dsn only with that secret",
    );
  if (key === null)
    throw new ConfigError(
      "BOUNCE_ADDRESS is set but BOUNCE_TOKEN_KEY is not: it is the key of the tokens in the bounce address (openssl rand -hex 32 makes one)",
    );
  // DSN_WEBHOOK_SECRET reads the tokens of mail sent before they had a key of their own, for a while.
  return { ...parsed, key, previousKey, legacyKey: dsnSecret };
}

function readMailFrom(env: Env): Mailbox | undefined {
  const value = readVariable(env, "MAIL_FROM");
  if (value === undefined) return undefined;
  const from = parseMailbox(value);
  if (!from)
    throw new ConfigError(
      'MAIL_FROM must be one address, as hello@example.com or Effect of the Day <hello@example.com>; a name with , ; : @ < > ( ) [ ] or " in it goes in double quotes ("Acme, Inc." <hello@example.com>)',
    );
  return from;
}

const MIN_CLIENT_SECRET_LENGTH = 20;

function readCmsAuth(env: Env): CmsAuthConfig | null {
  const clientId = readVariable(env, "CMS_GITHUB_CLIENT_ID");
  const clientSecret = readVariable(env, "CMS_GITHUB_CLIENT_SECRET");
  if (!clientId && !clientSecret) return null;
  if (!clientId || !clientSecret)
    throw new ConfigError(
      `${clientId ? "CMS_GITHUB_CLIENT_SECRET" : "CMS_GITHUB_CLIENT_ID"} must be set too: cms-auth needs the OAuth App's Client ID and a client secret`,
    );
  if (clientSecret.length < MIN_CLIENT_SECRET_LENGTH)
    throw new ConfigError(
      `CMS_GITHUB_CLIENT_SECRET must be the OAuth App's client secret (GitHub makes 40 characters), at least ${MIN_CLIENT_SECRET_LENGTH}`,
    );
  return {
    clientId,
    clientSecret,
    githubUrl: requireHttpsWhenHosted(
      env,
      "CMS_GITHUB_URL",
      readUrl(env, "CMS_GITHUB_URL", "https://github.com"),
    ),
  };
}

/** "1st", "2nd", ...: which entry of a list setting is wrong, without repeating it. */
const ordinal = (index: number): string => `${index + 1}${["st", "nd", "rd"][index] ?? "th"}`;

function readUrl(env: Env, name: VariableName, fallback: string): string {
  const raw = readVariable(env, name) ?? fallback;
  const url = parseUrlSetting(name, raw, "it must be an absolute http(s) URL such as https://example.com");
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  // Links are built as `${base}/?confirm=...`, so keep the path but drop a trailing slash.
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * A host that is this machine, however written: `localhost` and its subdomains, 127.0.0.0/8, the
 * unspecified addresses (a connection to 0.0.0.0 reaches this machine) and IPv6's own forms.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    /^127\.\d+\.\d+\.\d+$/.test(host) ||
    host === "0.0.0.0" ||
    host === "[::1]" ||
    host === "[::]" ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)
  );
}

function readOrigins(env: Env, siteUrl: string): string[] {
  const origins = (readVariable(env, "ALLOWED_ORIGINS") ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean)
    .map((origin, index) => {
      let url: URL | undefined;
      try {
        url = new URL(origin);
      } catch {
        // reported below
      }
      // Without a scheme, "localhost:8000" parses as a URL whose origin is "null": the origin a
      // sandboxed frame on any site sends. Only http(s) origins are allowed.
      if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
        throw new ConfigError(
          `ALLOWED_ORIGINS's ${ordinal(index)} entry is not an origin like https://example.com (scheme included)`,
        );
      }
      return url.origin;
    });
  // On Supabase the site is public. An http origin is one anyone on the path can impersonate; a
  // loopback one is whatever listens on an editor's own machine (a dev server, any local app).
  // Either would get the signup's CORS and, through cms-auth, which ends the sign-in on the origin
  // /admin/ was opened on (else SITE_URL's), the editor's one-time code for their GitHub token.
  // The local stack (and `supabase functions serve`, whose SUPABASE_URL is http) keeps them.
  if (supabaseProjectUrl(env)) {
    const problem = (url: URL) =>
      url.protocol !== "https:"
        ? "is not https"
        : isLoopbackHost(url.hostname)
          ? "is this machine (loopback)"
          : null;
    const siteProblem = problem(new URL(siteUrl));
    if (siteProblem)
      throw new ConfigError(
        `SITE_URL ${siteProblem}: on Supabase it must be the site's public https address`,
      );
    origins.forEach((origin, index) => {
      const originProblem = problem(new URL(origin));
      if (originProblem)
        throw new ConfigError(
          `ALLOWED_ORIGINS's ${ordinal(index)} entry ${originProblem}: on Supabase each must be a public https origin of the site`,
        );
    });
  }
  return origins.length > 0 ? origins : [new URL(siteUrl).origin];
}

/** On Supabase a service the functions send secrets to is reached over https, or a stand-in on this machine. */
function requireHttpsWhenHosted(env: Env, name: VariableName, url: string): string {
  const parsed = new URL(url);
  if (supabaseProjectUrl(env) && parsed.protocol === "http:" && !LOOPBACK.has(parsed.hostname))
    throw new ConfigError(
      `${name} is http: on Supabase it must be https (only a stand-in on loopback may be http)`,
    );
  return url;
}

/**
 * Builds the configuration. `defaultSiteUrl` is the local stack's own address
 * (`http://localhost:$PORT`); on Supabase `SITE_URL` must be set (the manifest says so).
 */
export function parseConfig(env: Env, defaultSiteUrl = "http://localhost:8000"): Config {
  const siteUrl = readUrl(env, "SITE_URL", defaultSiteUrl);
  // The one-click unsubscribe address: on Supabase the project's own functions, since SITE_URL is
  // the static host, which has none; on the local stack the functions beside the site.
  const project = supabaseProjectUrl(env);
  const mailEvents = readMailEvents(env);
  return {
    siteUrl,
    functionsUrl: readUrl(env, "FUNCTIONS_URL", `${project ?? siteUrl}/functions/v1`),
    allowedOrigins: readOrigins(env, siteUrl),
    mailFrom: readMailFrom(env),
    bounce: mailEvents.bounce,
    rateLimitPerMinute: readNumberVariable(env, "RATE_LIMIT_PER_MINUTE"),
    linkRateLimitPerMinute: readNumberVariable(env, "LINK_RATE_LIMIT_PER_MINUTE"),
    resendCooldownSeconds: readNumberVariable(env, "RESEND_COOLDOWN_SECONDS"),
    confirmationMailsPerDay: readNumberVariable(env, "CONFIRMATION_MAILS_PER_DAY"),
    confirmationMailsPerClientPerDay: readNumberVariable(env, "CONFIRMATION_MAILS_PER_CLIENT_PER_DAY"),
    confirmTokenTtlHours: readNumberVariable(env, "CONFIRM_TOKEN_TTL_HOURS"),
    purgePendingAfterDays: readNumberVariable(env, "PURGE_PENDING_AFTER_DAYS"),
    maxBodyBytes: readNumberVariable(env, "MAX_BODY_BYTES"),
    mailRetryBaseSeconds: readNumberVariable(env, "MAIL_RETRY_BASE_SECONDS"),
    mailRetryMaxSeconds: readNumberVariable(env, "MAIL_RETRY_MAX_SECONDS"),
    mailEvents,
    cmsAuth: readCmsAuth(env),
  };
}

/**
 * Hosted Supabase sets `SUPABASE_URL` to the project's https address. There a forgotten setting
 * stops the function with a message naming it (`backend.ts`, from the manifest), because the
 * alternatives are mail linking to localhost, CORS refusing the real site, or mail only logged.
 */
export function supabaseProjectUrl(env: Env): string | null {
  const url = readVariable(env, "SUPABASE_URL")?.replace(/\/+$/, "");
  return url?.startsWith("https://") ? url : null;
}

/**
 * Warnings an operator should see at start: mail providers only honour an https one-click
 * unsubscribe address (RFC 8058), so an http one is fine on this machine and wrong anywhere else;
 * and a dsn route without BOUNCE_ADDRESS can believe no returned mail (`mail-events/report-trust.ts`).
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const functions = new URL(config.functionsUrl);
  const local = ["localhost", "127.0.0.1", "[::1]"].includes(functions.hostname);
  if (functions.protocol !== "https:" && !local) {
    warnings.push(
      `FUNCTIONS_URL (${config.functionsUrl}) is not https: mail providers ignore a List-Unsubscribe address that is not https. Set SITE_URL or FUNCTIONS_URL to the public https address.`,
    );
  }
  if (config.mailEvents.dsnSecret !== null && config.bounce === null)
    warnings.push(
      "DSN_WEBHOOK_SECRET is set but BOUNCE_ADDRESS is not: mail-events/dsn can tell no returned mail of ours from a forged one, so it ignores every bounce (only a complaint whose reported mail carries its List-Unsubscribe token counts). Set BOUNCE_ADDRESS (docs/operating.md).",
    );
  return warnings;
}
