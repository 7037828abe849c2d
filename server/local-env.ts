/**
 * The local stack's own settings (`npm start`, `npm run serve`, `npm run effect`,
 * `npm run subscribers`), read through the registry (contract/variables.ts): where it listens, where
 * data, content and the built site live, which database and mail server it uses. The functions'
 * settings (`SITE_URL`, limits, ...) are read by `parseConfig` in the core. A value that is set
 * but unusable is an error, never a default.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import {
  ConfigError,
  type Env,
  readNumberVariable,
  readTextVariable,
  readVariable,
} from "../supabase/functions/_shared/contract/variables.ts";
import { parseTrustedHops } from "../supabase/functions/_shared/hosts.ts";

export const ROOT = path.resolve(__dirname, "..");

export interface LocalEnv {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** PGlite files and the outbox. */
  dataDir: string;
  publicDir: string;
  /** The content the site is built from: the sender's names and time zone come from it too. */
  contentDir: string;
  /** PostgreSQL instead of PGlite. */
  databaseUrl?: string;
  /** SMTP instead of the outbox. */
  smtpUrl?: string;
  /** Reverse proxies in front (`TRUST_PROXY`): the client is the entry the outermost appended to `X-Forwarded-For`. */
  trustedHops: number;
  /** `CMS_BACKEND_PORT`: /admin/ may call `npm run cms`'s local backend there. */
  cmsBackendPort: number;
  /** `FORGET_HASH_KEY`: the key of the hash `npm run subscribers -- forget` keeps, and whether it is the default. */
  forgetKey: { key: string; isDefault: boolean };
}

export function parseLocalEnv(env: Env = process.env): LocalEnv {
  return {
    port: readNumberVariable(env, "PORT"),
    host: readTextVariable(env, "HOST"),
    dataDir: path.resolve(ROOT, readTextVariable(env, "DATA_DIR")),
    publicDir: path.resolve(ROOT, readTextVariable(env, "PUBLIC_DIR")),
    contentDir: path.join(ROOT, "content"),
    databaseUrl: readVariable(env, "DATABASE_URL"),
    smtpUrl: readVariable(env, "SMTP_URL"),
    trustedHops: parseTrustedHops(readVariable(env, "TRUST_PROXY")),
    cmsBackendPort: readNumberVariable(env, "CMS_BACKEND_PORT"),
    forgetKey: forgetKeyOf(env),
  };
}

/** FORGET_HASH_KEY: its own, of 32 characters or more, else the local default. */
function forgetKeyOf(env: Env): LocalEnv["forgetKey"] {
  const set = readVariable(env, "FORGET_HASH_KEY");
  if (set !== undefined && set.length < 32)
    throw new ConfigError("FORGET_HASH_KEY must be 32 characters or more: it is shorter");
  return { key: set ?? readTextVariable(env, "FORGET_HASH_KEY"), isDefault: set === undefined };
}

/**
 * `npm start`, `npm run serve`, `npm run effect` and `npm run subscribers` read `.env` in the
 * project's folder when there is one (`cp .env.example .env`), by Node's own rules (those of
 * `node --env-file`); a variable already set in the environment wins over the file. Returns the
 * file read, for the start-up line, or null.
 */
export function loadDotEnv(env: Env = process.env, file = path.join(ROOT, ".env")): string | null {
  if (!existsSync(file)) return null;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, "utf8"))))
    if (env[name] === undefined) env[name] = value;
  return file;
}
