/**
 * The functions' configuration, read from a plain record of environment variables so the same
 * parser serves Deno (`Deno.env.toObject()`) and Node (`process.env`). Every variable has a working
 * local default; a value that is set but unusable is an error at start, never a silent default.
 */

export interface Config {
  /** Where the links in mail point: `${siteUrl}/?confirm=TOKEN`. No trailing slash. */
  siteUrl: string;
  /** The functions' base URL, for the one-click `List-Unsubscribe` header. No trailing slash. */
  functionsUrl: string;
  /** Origins allowed to call the functions from a browser (CORS). */
  allowedOrigins: string[];
  mailFrom: string;
  newsletterName: string;
  brandName: string;
  /** `List-Id` value, e.g. `Effect of the Day <effect-of-the-day.example.com>`. */
  listId: string;
  /** Signups per client address per minute. */
  rateLimitPerMinute: number;
  /** Confirm and unsubscribe calls per client address per minute (mail links, one-click posts). */
  linkRateLimitPerMinute: number;
  /** Seconds between two confirmation mails to one mailbox. */
  resendCooldownSeconds: number;
  /** Confirmation mails to one mailbox per UTC day (`ann+1@` and `Ann+2@` are one mailbox). */
  confirmationMailsPerDay: number;
  /** Confirmation mails that signups from one client address may cause per UTC day. */
  confirmationMailsPerClientPerDay: number;
  /** Hours a confirmation link stays valid. */
  confirmTokenTtlHours: number;
  /** Days after which a pending address that never confirmed is deleted. */
  purgePendingAfterDays: number;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** First retry delay of a failed mail; doubles per attempt up to `mailRetryMaxSeconds`. */
  mailRetryBaseSeconds: number;
  mailRetryMaxSeconds: number;
}

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

const DEFAULT_NEWSLETTER = "Effect of the Day";
const DEFAULT_BRAND = "The Purpose Effect";

function readUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must be an http(s) URL (got "${raw}")`);
  }
  // Links are built as `${base}/?confirm=...`, so keep the path but drop a trailing slash.
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

export function readNumber(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "") || "newsletter";

/**
 * Builds the configuration. `defaultSiteUrl` is the local stack's own address
 * (`http://localhost:$PORT`); on Supabase `SITE_URL` must be set.
 */
export function parseConfig(env: Env, defaultSiteUrl = "http://localhost:8000"): Config {
  const siteUrl = readUrl(env, "SITE_URL", defaultSiteUrl);
  const functionsUrl = readUrl(env, "FUNCTIONS_URL", `${siteUrl}/functions/v1`);
  const allowedOrigins = (env.ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean)
    .map((origin) => {
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
          `ALLOWED_ORIGINS holds "${origin}", which is not an origin like https://example.com (scheme included)`,
        );
      }
      return url.origin;
    });
  if (allowedOrigins.length === 0) allowedOrigins.push(new URL(siteUrl).origin);
  const newsletterName = env.NEWSLETTER_NAME?.trim() || DEFAULT_NEWSLETTER;
  const brandName = env.BRAND_NAME?.trim() || DEFAULT_BRAND;
  const host = new URL(siteUrl).hostname;
  const mailFrom =
    env.MAIL_FROM?.trim() ||
    `${newsletterName} <newsletter@${host === "localhost" ? "localhost.localdomain" : host}>`;
  return {
    siteUrl,
    functionsUrl,
    allowedOrigins,
    mailFrom,
    newsletterName,
    brandName,
    listId: `${newsletterName} <${slug(newsletterName)}.${host}>`,
    rateLimitPerMinute: readNumber(env, "RATE_LIMIT_PER_MINUTE", 10, 1),
    linkRateLimitPerMinute: readNumber(env, "LINK_RATE_LIMIT_PER_MINUTE", 60, 1),
    resendCooldownSeconds: readNumber(env, "RESEND_COOLDOWN_SECONDS", 60, 0),
    confirmationMailsPerDay: readNumber(env, "CONFIRMATION_MAILS_PER_DAY", 3, 1),
    confirmationMailsPerClientPerDay: readNumber(env, "CONFIRMATION_MAILS_PER_CLIENT_PER_DAY", 30, 1),
    confirmTokenTtlHours: readNumber(env, "CONFIRM_TOKEN_TTL_HOURS", 24, 0.001),
    purgePendingAfterDays: readNumber(env, "PURGE_PENDING_AFTER_DAYS", 7, 1),
    maxBodyBytes: readNumber(env, "MAX_BODY_BYTES", 4096, 256, 1_000_000),
    mailRetryBaseSeconds: readNumber(env, "MAIL_RETRY_BASE_SECONDS", 10, 0.01),
    mailRetryMaxSeconds: readNumber(env, "MAIL_RETRY_MAX_SECONDS", 1800, 0.01),
  };
}

/** What a function on Supabase (or any Deno host) needs besides `Config`. */
export interface FunctionEnvironment {
  config: Config;
  /** `SMTP_URL`, or null where mail may only be logged (a local `supabase functions serve`). */
  smtpUrl: string | null;
}

/**
 * The Deno entries' configuration. Hosted Supabase sets `SUPABASE_URL` to the project's https
 * address: there a forgotten secret stops the function with a message naming it, because the
 * alternatives are mail linking to localhost, CORS refusing the real site, or mail only logged
 * (lost). The one-click unsubscribe address defaults to the project's own functions, since
 * `SITE_URL` is the static host, which has none.
 */
export function parseFunctionEnvironment(env: Env): FunctionEnvironment {
  const supabaseUrl = env.SUPABASE_URL?.trim().replace(/\/+$/, "");
  const hosted = supabaseUrl?.startsWith("https://") ?? false;
  if (hosted) {
    const missing = ["SITE_URL", "SMTP_URL"].filter((name) => !env[name]?.trim());
    if (missing.length > 0) {
      throw new ConfigError(
        `${missing.join(" and ")} must be set on Supabase (supabase secrets set ${missing.map((name) => `${name}=...`).join(" ")}); see the README's Deploying section`,
      );
    }
  }
  const functionsUrl = env.FUNCTIONS_URL?.trim() || (hosted ? `${supabaseUrl}/functions/v1` : undefined);
  return {
    config: parseConfig({ ...env, FUNCTIONS_URL: functionsUrl }),
    smtpUrl: env.SMTP_URL?.trim() || null,
  };
}

/**
 * Warnings an operator should see at start: mail providers only honour an https one-click
 * unsubscribe address (RFC 8058), so an http one is fine on this machine and wrong anywhere else.
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
  return warnings;
}
