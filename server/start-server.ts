/**
 * Starts the local stack: one Node process serving the built site from `public/` and the
 * newsletter functions at `/functions/v1/<name>` on one origin (`app.ts`), over the storage of
 * `storage.ts` and the mail transport the environment names. `startServer` is what
 * `server/main.ts` runs and what the tests start; `close` is the graceful shutdown.
 */
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import {
  type Backend,
  type Fetch,
  type Logger,
  maskingLogger,
  type SqlExecutor,
} from "../supabase/functions/_shared/hosts.ts";
import type { Env } from "../supabase/functions/_shared/contract/variables.ts";
import {
  adminSecurityHeaders,
  localBackendOrigins,
  contentSecurityPolicy,
  securityHeaders,
  signInPageSecurityHeaders,
  siteConnectOrigins,
} from "../site-headers/security-headers.ts";
import { readSenderIdentity } from "../src/content/read-brand.ts";
import { createApp } from "./app.ts";
import { startEffectService } from "./effect-service.ts";
import { parseLocalEnv } from "./local-env.ts";
import { createNodeBackend } from "./node-backend.ts";
import { startRetryTimer } from "./retry-timer.ts";
import { stdoutLogger } from "./stdout-logger.ts";
import { openStorage } from "./storage.ts";

export interface ServerOptions {
  /** The environment to read (PORT, DATA_DIR, DATABASE_URL, SMTP_URL, SITE_URL, ...). Default: process.env. */
  env?: Env;
  log?: Logger;
  /** Clock for the functions (tests move time forward). */
  now?: () => Date;
  /** What mail-events/ses fetches SNS's certificates with (tests serve their own). */
  fetch?: Fetch;
  /** The content the names, time zone and mails' words are read from. Default: `content/`. */
  contentDir?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  /** The core it serves (`createBackend`): tests read the list and drain the queue through it. */
  backend: Backend;
  /** The storage it runs on (tests read the queue from it). */
  db: SqlExecutor;
  /** Stops taking requests, finishes the ones in flight and the mail being sent, closes storage. */
  close(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 10_000;
/** More than a site this size meets at once; a client opening thousands is refused, not served. */
export const MAX_CONNECTIONS = 512;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env;
  // Every line, whoever writes it, with its addresses masked (an SMTP server's error included).
  const log = maskingLogger(options.log ?? stdoutLogger);
  const local = parseLocalEnv(env);

  // Listen first (PORT=0 picks a free port), so the default SITE_URL can name the real port.
  let fetchHandler: (request: Request, bindings: unknown) => Response | Promise<Response> = () =>
    new Response(null, { status: 503, headers: { "Retry-After": "1" } });
  const server = createAdaptorServer({
    fetch: (request, bindings) => fetchHandler(request, bindings),
    // Node's own Request and Response: the core checks `instanceof Response`.
    overrideGlobalObjects: false,
    // Node checks the timeouts below every connectionsCheckingInterval (30 s by default).
    serverOptions: { connectionsCheckingInterval: 1_000 },
  }) as Server;
  server.keepAliveTimeout = 5_000;
  // Slow clients: the largest body is 4 KB of JSON, seconds on the slowest phone. Without these a
  // client sending a byte every few seconds held a connection for five minutes.
  server.headersTimeout = 6_000;
  server.requestTimeout = 10_000;
  server.maxConnections = MAX_CONNECTIONS;
  // Each request until its answer is fully written, so shutdown can wait for it.
  const inFlight = new Set<Promise<void>>();
  server.on("request", (_request, response) => {
    const done = new Promise<void>((resolve) => response.once("close", resolve));
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(local.port, local.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;

  let storage: Awaited<ReturnType<typeof openStorage>> | undefined;
  try {
    storage = await openStorage({ databaseUrl: local.databaseUrl, dataDir: local.dataDir });
    const migrated = storage.migrations.applied.length;
    log.info(`storage: ${storage.description}${migrated ? ` (applied ${migrated} migrations)` : ""}`);
    for (const name of storage.migrations.changed) {
      log.warn(
        `migration ${name} changed after it was applied; write a new migration instead of editing an applied one`,
      );
    }
    const identity = readSenderIdentity(options.contentDir ?? local.contentDir);
    const backend = createNodeBackend(env, {
      db: storage.db,
      log,
      identity,
      dataDir: local.dataDir,
      publicDir: local.publicDir,
      defaultSiteUrl: url,
      now: options.now,
      fetch: options.fetch,
    });
    log.info(`mail: ${backend.mailDescription()}`);
    const effects = await startEffectService({
      backend,
      db: storage.db,
      exclusive: storage.exclusive,
      timeZone: identity.timeZone,
      dataDir: local.dataDir,
      forgetKey: local.forgetKey,
      log,
    });
    if (storage.exclusive) {
      // The mail a crashed run had claimed goes out now, not when its lease runs out.
      const freed = await backend.releaseAllClaims();
      if (freed > 0)
        log.warn(`${freed} mail jobs were claimed by a process that stopped; sending them again`);
    }
    const delivery = startRetryTimer(backend, log, options.now);

    const { publicDir } = local;
    if (!existsSync(path.join(publicDir, "index.html")))
      log.warn(`no built site in ${publicDir}: only the functions are served`);
    const app = createApp({
      backend,
      publicDir,
      // The built editor may use `npm run cms`'s backend at its port (the browser tests do).
      adminSecurityHeaders: adminSecurityHeaders({
        localBackends: localBackendOrigins(local.cmsBackendPort),
      }),
      signInPageSecurityHeaders: signInPageSecurityHeaders(siteConnectOrigins(env)),
      securityHeaders: securityHeaders(
        contentSecurityPolicy({ publicDir, connectOrigins: siteConnectOrigins(env) }),
      ),
      log,
      trustedHops: local.trustedHops,
      waitUntil: delivery.waitUntil,
    });
    fetchHandler = (request, bindings) => app.fetch(request, bindings as object);

    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const deadline = Date.now() + SHUTDOWN_GRACE_MS;
        while (inFlight.size > 0 && Date.now() < deadline) await Promise.race([...inFlight, sleep(100)]);
        server.closeAllConnections();
        await stopped;
        await effects.stop();
        await delivery.stop();
        await backend.closeMail();
        await storage?.close();
      })());
    return { url, port, backend, db: storage.db, close };
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage?.close();
    throw error;
  }
}
