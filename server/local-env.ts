/**
 * The one reader of the local stack's environment (`npm start`, `npm run serve`,
 * `npm run subscribers`): where it listens, where data and the built site live, which database
 * and mail server it uses. The functions' own settings (`SITE_URL`, limits, ...) are read by
 * `parseConfig` in the portable core. A value that is set but unusable is an error, never a default.
 */
import path from "node:path";
import type { Env } from "../supabase/functions/_shared/config.ts";
import { parseTrustedHops } from "../supabase/functions/_shared/http/client-address.ts";

export const ROOT = path.resolve(__dirname, "..");

export interface LocalEnv {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** PGlite files and the outbox. */
  dataDir: string;
  publicDir: string;
  /** PostgreSQL instead of PGlite. */
  databaseUrl?: string;
  /** SMTP instead of the outbox. */
  smtpUrl?: string;
  /** Reverse proxies in front (`TRUST_PROXY`): the client is the entry the outermost appended to `X-Forwarded-For`. */
  trustedHops: number;
}

const set = (value: string | undefined): string | undefined => value?.trim() || undefined;

export function parseLocalEnv(env: Env = process.env): LocalEnv {
  // An empty PORT (`PORT= npm start`) means unset, not port 0.
  const port = Number(set(env.PORT) ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be a port number (got "${env.PORT}")`);
  }
  return {
    port,
    host: set(env.HOST) ?? "127.0.0.1",
    dataDir: path.resolve(ROOT, set(env.DATA_DIR) ?? ".data"),
    publicDir: path.resolve(ROOT, set(env.PUBLIC_DIR) ?? "public"),
    databaseUrl: set(env.DATABASE_URL),
    smtpUrl: set(env.SMTP_URL),
    trustedHops: parseTrustedHops(env.TRUST_PROXY),
  };
}
