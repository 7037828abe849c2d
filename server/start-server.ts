/**
 * The local stack: one Node process serving the built site from `public/` and the newsletter
 * functions at `/functions/v1/<name>` on one origin, through the same handler as Supabase.
 * `startServer` is what `server/main.ts` runs and what the tests start.
 */
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { forwardedClientAddress, parseTrustedHops } from "../supabase/functions/_shared/client-address.ts";
import { configWarnings, type Env, parseConfig } from "../supabase/functions/_shared/config.ts";
import { createSmtpMailer } from "../supabase/functions/_shared/drivers/smtp-mailer.ts";
import {
  createFunctionHandler,
  type FunctionHandler,
  FUNCTION_NAMES,
  isFunctionName,
} from "../supabase/functions/_shared/handler.ts";
import { corsHeaders, errorResponse } from "../supabase/functions/_shared/http.ts";
import { type Logger, maskingLogger } from "../supabase/functions/_shared/logger.ts";
import { createMailSender, type Mailer } from "../supabase/functions/_shared/mail-sender.ts";
import {
  createSubscriberStore,
  type SubscriberStore,
} from "../supabase/functions/_shared/subscriber-store.ts";
import { startEffectService } from "./effect-service.ts";
import { startMailWorker } from "./mail-worker.ts";
import { createOutboxMailer } from "./outbox-mailer.ts";
import { contentSecurityPolicy, securityHeaders, siteConnectOrigins } from "./security-headers.ts";
import { createStaticSite } from "./static-site.ts";
import { openStorage } from "./storage.ts";

export const ROOT = path.resolve(__dirname, "..");

export interface ServerOptions {
  /** The environment to read (PORT, DATA_DIR, DATABASE_URL, SMTP_URL, SITE_URL, ...). Default: process.env. */
  env?: Env;
  log?: Logger;
  /** Clock for the functions (tests move time forward). */
  now?: () => Date;
}

export interface RunningServer {
  url: string;
  port: number;
  store: SubscriberStore;
  /** Stops taking requests, finishes the ones in flight and the mail being sent, closes storage. */
  close(): Promise<void>;
}

const FUNCTIONS_PREFIX = "/functions/v1/";
/** More than a site this size meets at once; a client opening thousands is refused, not served. */
export const MAX_CONNECTIONS = 512;
const SHUTDOWN_GRACE_MS = 10_000;

const timestamp = () => new Date().toISOString().slice(11, 19);

export const stdoutLogger: Logger = {
  info: (message) => console.log(`${timestamp()} ${message}`),
  warn: (message) => console.warn(`${timestamp()} warning: ${message}`),
  error: (message) => console.error(`${timestamp()} error: ${message}`),
};

function toWebRequest(request: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  for (let i = 0; i < request.rawHeaders.length; i += 2)
    headers.append(request.rawHeaders[i], request.rawHeaders[i + 1]);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  // Node's fetch needs `duplex: "half"` for a streamed body; the DOM typings do not know it yet.
  const init: RequestInit & { duplex?: "half" } = {
    method: request.method,
    headers,
    body: hasBody ? (Readable.toWeb(request) as ReadableStream<Uint8Array>) : undefined,
    duplex: hasBody ? "half" : undefined,
  };
  return new Request(url, init);
}

async function sendWebResponse(
  response: ServerResponse,
  answer: Response,
  extra: Record<string, string>,
): Promise<void> {
  const headers: Record<string, string> = { ...extra };
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = Buffer.from(await answer.arrayBuffer());
  headers["content-length"] = String(body.length);
  response.writeHead(answer.status, headers);
  response.end(body);
}

function clientAddress(request: IncomingMessage, trustedHops: number): string {
  const forwarded = request.headers["x-forwarded-for"];
  return forwardedClientAddress(
    Array.isArray(forwarded) ? forwarded.join(", ") : forwarded,
    request.socket.remoteAddress ?? "unknown",
    trustedHops,
  );
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const log = maskingLogger(options.log ?? stdoutLogger);
  // An empty PORT (`PORT= npm start`) means unset, not port 0.
  const requestedPort = Number(env.PORT?.trim() || 8000);
  if (!Number.isInteger(requestedPort) || requestedPort < 0 || requestedPort > 65535) {
    throw new Error(`PORT must be a port number (got "${env.PORT}")`);
  }
  const host = env.HOST?.trim() || "127.0.0.1";
  const dataDir = path.resolve(ROOT, env.DATA_DIR?.trim() || ".data");
  const publicDir = path.resolve(ROOT, env.PUBLIC_DIR?.trim() || "public");
  const trustedHops = parseTrustedHops(env.TRUST_PROXY);

  // Listen first (PORT=0 picks a free port), so the default SITE_URL can name the real port.
  const inFlight = new Set<Promise<void>>();
  let handle: (request: IncomingMessage, response: ServerResponse) => Promise<void> = async (
    _request,
    response,
  ) => {
    response.writeHead(503, { "Retry-After": "1" }).end();
  };
  const server = createServer({ connectionsCheckingInterval: 1_000 }, (request, response) => {
    if (!URL.canParse(request.url ?? "/", "http://localhost")) {
      // `GET //[`: not a path any page or function has. One line, no stack trace.
      log.info(`${request.method} (malformed request target) 400`);
      response.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
      response.end("Bad Request\n");
      return;
    }
    const done = handle(request, response).catch((error: unknown) => {
      log.error(`request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
      response.end();
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });
  server.keepAliveTimeout = 5_000;
  // Slow clients: the largest body is 4 KB of JSON, seconds on the slowest phone. Without these a
  // client sending a byte every few seconds held a connection for five minutes. Node checks the
  // timeouts every connectionsCheckingInterval (30 s by default), hence its lower value.
  server.headersTimeout = 6_000;
  server.requestTimeout = 10_000;
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(requestedPort, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;

  let storage: Awaited<ReturnType<typeof openStorage>> | undefined;
  let mailer: Mailer;
  try {
    const config = parseConfig(env, url);
    for (const warning of configWarnings(config)) log.warn(warning);
    storage = await openStorage({ databaseUrl: env.DATABASE_URL?.trim() || undefined, dataDir });
    const migrated = storage.migrations.applied.length;
    log.info(`storage: ${storage.description}${migrated ? ` (applied ${migrated} migrations)` : ""}`);
    for (const name of storage.migrations.changed) {
      log.warn(
        `migration ${name} changed after it was applied; write a new migration instead of editing an applied one`,
      );
    }
    mailer = env.SMTP_URL?.trim()
      ? createSmtpMailer(env.SMTP_URL.trim())
      : createOutboxMailer(path.join(dataDir, "outbox"), log);
    log.info(`mail: ${mailer.description}`);

    const store = createSubscriberStore(storage.db);
    const sender = createMailSender({ store, mailer, config, log, now: options.now });
    const worker = startMailWorker(sender, store, log, options.now);
    const effects = await startEffectService({
      db: storage.db,
      exclusive: !env.DATABASE_URL?.trim(),
      ...{ env, config, dataDir, publicDir, log, now: options.now },
    });
    const handlers = Object.fromEntries(
      FUNCTION_NAMES.map((name) => [
        name,
        createFunctionHandler(name, { store, config, log, now: options.now, onMailQueued: worker.kick }),
      ]),
    ) as Record<(typeof FUNCTION_NAMES)[number], FunctionHandler>;

    const siteBuilt = existsSync(path.join(publicDir, "index.html"));
    if (!siteBuilt) log.warn(`no built site in ${publicDir}: only the functions are served`);
    const site = createStaticSite(publicDir);
    const headers = securityHeaders(
      contentSecurityPolicy({ publicDir, connectOrigins: siteConnectOrigins(env) }),
    );

    handle = async (request, response) => {
      const started = performance.now();
      const requestUrl = new URL(request.url ?? "/", url);
      let status: number;
      let outcome = "";
      if (requestUrl.pathname.startsWith(FUNCTIONS_PREFIX)) {
        const name = requestUrl.pathname.slice(FUNCTIONS_PREFIX.length).replace(/\/$/, "");
        const webRequest = toWebRequest(request, requestUrl);
        const answer = isFunctionName(name)
          ? await handlers[name](webRequest, {
              clientAddress: clientAddress(request, trustedHops),
              note: (text) => (outcome = text),
            })
          : errorResponse(
              404,
              "not_found",
              `There is no function named "${name}".`,
              corsHeaders(webRequest, config.allowedOrigins),
            );
        status = answer.status;
        await sendWebResponse(response, answer, headers);
      } else {
        status = await site.serve(request, response, headers);
      }
      // The path only: query strings carry tokens (`/?confirm=...`), and bodies carry addresses.
      const ms = (performance.now() - started).toFixed(1);
      log.info(`${request.method} ${requestUrl.pathname} ${status} ${ms}ms${outcome ? ` ${outcome}` : ""}`);
    };

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
        await worker.stop();
        await mailer.close?.();
        await storage?.close();
      })());
    return { url, port, store, close };
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage?.close();
    throw error;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
