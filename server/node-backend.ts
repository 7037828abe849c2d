/**
 * The core's front door as every Node host opens it (the local stack, `npm run effect`, the
 * benchmarks): `createBackend` over a database the host opened, the published site as this
 * machine has it (`public/`, else `SITE_URL`; the names from `content/`), the outbox folder when
 * no mail transport is configured, and sender names made of this host and process.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import path from "node:path";
import {
  createBackend,
  type FeatureName,
  type Fetch,
  type Logger,
  type SqlExecutor,
} from "../supabase/functions/_shared/hosts.ts";
import type { SenderIdentity } from "../supabase/functions/_shared/contract/published.ts";
import type { Env } from "../supabase/functions/_shared/contract/variables.ts";
import { localPublishedSite } from "./effect-editions.ts";
import { createOutboxMailer } from "./outbox-mailer.ts";

export interface NodeBackendOptions {
  db: SqlExecutor;
  log: Logger;
  /** The names and time zone the mail carries, from `content/`. */
  identity: SenderIdentity;
  dataDir: string;
  publicDir: string;
  /** `SITE_URL` when unset: the stack's own address. */
  defaultSiteUrl?: string;
  features?: readonly FeatureName[];
  now?: () => Date;
  fetch?: Fetch;
}

/** This sender's name on the rows it holds, unique across hosts, processes and runs. */
export const senderName = () => `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

export function createNodeBackend(env: Env, options: NodeBackendOptions) {
  return createBackend(env, {
    db: options.db,
    log: options.log,
    site: (config) => localPublishedSite(options.publicDir, options.identity, config.siteUrl),
    features: options.features,
    defaultSiteUrl: options.defaultSiteUrl,
    // The Effect's ten thousand mails are counted by `status`, not logged one by one.
    fallbackMailer: (bulk) =>
      createOutboxMailer(path.join(options.dataDir, "outbox"), bulk ? undefined : options.log),
    senderName,
    now: options.now,
    fetch: options.fetch,
  });
}
