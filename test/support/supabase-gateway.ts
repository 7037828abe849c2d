/**
 * A stand-in for Supabase's Edge Functions gateway, for what cannot run here: it serves the Deno
 * entries the way the hosted platform does, by its published rules
 * (https://supabase.com/docs/guides/functions/limits, .../functions/auth), so a test fails where
 * the platform would.
 *
 * - `verify_jwt`, per function, from `supabase/config.toml`: on, a request without a valid
 *   `Authorization: Bearer <JWT>` (HS256, the project's secret) is answered 401 before the worker.
 * - A GET answered with `text/html` reaches the browser as `text/plain` (without a custom domain).
 * - A worker that uses more than 2 s of CPU (`cpuMs`) or 256 MB (`memoryMb`) while a request is in
 *   flight is stopped, and the request gets 546 `WORKER_LIMIT`; so does one past the wall-clock
 *   limit (150 s on the free plan). The next request starts a new worker, as the platform boots one.
 *
 * CPU and memory are read from /proc for the worker's whole process group, every few milliseconds
 * while requests are in flight; with several requests in flight at once, each is charged what the
 * worker used since it began, which is stricter than the platform (Linux only, like this machine).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { ROOT } from "./stack.ts";

export interface GatewayWorker {
  /** Where the worker listens: its origin, serving `/functions/v1/<name>/...` as the gateway forwards it. */
  url: string;
  /** Its process group, for CPU and memory. */
  pid: number;
  stop(): Promise<void>;
}

export interface GatewayLimits {
  cpuMs: number;
  memoryMb: number;
  wallMs: number;
}

/** The free plan's limits (paid plans: 400 s of wall clock). */
export const SUPABASE_LIMITS: GatewayLimits = { cpuMs: 2_000, memoryMb: 256, wallMs: 150_000 };

export interface GatewayOptions {
  /** Starts the worker that serves `name` (called again after a stop). */
  startWorker(name: string): Promise<GatewayWorker>;
  /** Which function a worker serves: one worker per function, or one for all (the tests' host). */
  workerFor?(name: string): string;
  limits?: Partial<GatewayLimits>;
  /** `supabase/config.toml`, for `verify_jwt`. */
  configToml?: string;
  jwtSecret?: string;
  port?: number;
}

export interface StoppedWorker {
  name: string;
  reason: "cpu" | "memory" | "wall" | "killed";
  cpuMs: number;
  memoryMb: number;
}

export interface SupabaseGateway {
  url: string;
  /** Workers the gateway stopped, and why. */
  stopped: StoppedWorker[];
  /** The most CPU any one request was charged, per function, in ms. */
  cpuByFunction: Map<string, number>;
  /** Kills the worker serving `name` with SIGKILL, mid-request or not, as a crash of the platform would. */
  kill(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** `verify_jwt` of each function block in config.toml (Supabase's default is on). */
export function verifyJwtSettings(toml: string): Map<string, boolean> {
  const settings = new Map<string, boolean>();
  const parts = toml.split(/^\[functions\.([a-z0-9_-]+)\]$/m).slice(1);
  for (let i = 0; i < parts.length; i += 2) {
    const body = parts[i + 1].split(/^\[/m)[0];
    settings.set(parts[i], /^verify_jwt\s*=\s*false$/m.exec(body) === null);
  }
  return settings;
}

const base64url = (buffer: Buffer) => buffer.toString("base64url");

/** A token as Supabase's auth issues it (HS256), for a test that calls a function with verify_jwt on. */
export function signJwt(payload: Record<string, unknown>, secret: string): string {
  const head = base64url(Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })));
  const body = base64url(Buffer.from(JSON.stringify(payload)));
  const signature = base64url(createHmac("sha256", secret).update(`${head}.${body}`).digest());
  return `${head}.${body}.${signature}`;
}

function validJwt(authorization: string | undefined, secret: string): boolean {
  const token = /^Bearer (.+)$/.exec(authorization ?? "")?.[1];
  const [head, body, signature] = token?.split(".") ?? [];
  if (!head || !body || !signature) return false;
  const expected = createHmac("sha256", secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { exp?: number };
  return claims.exp === undefined || claims.exp * 1000 > Date.now();
}

const TICKS_PER_SECOND = 100;
const PAGE_KB = 4;

/** CPU (ms) and resident memory (MB) of every process in the group `pgid`. */
export function groupUsage(pgid: number): { cpuMs: number; memoryMb: number } {
  let ticks = 0;
  let pages = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command's closing parenthesis: state ppid pgrp ... utime(14) stime(15) ... rss(24).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
      pages += Number(fields[21]);
    } catch {
      // Gone meanwhile.
    }
  }
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, memoryMb: (pages * PAGE_KB) / 1024 };
}

const POLL_MS = 10;

export async function startSupabaseGateway(options: GatewayOptions): Promise<SupabaseGateway> {
  const limits = { ...SUPABASE_LIMITS, ...options.limits };
  const verifyJwt = verifyJwtSettings(
    readFileSync(options.configToml ?? path.join(ROOT, "supabase", "config.toml"), "utf8"),
  );
  const workerFor = options.workerFor ?? ((name: string) => name);
  const workers = new Map<string, Promise<GatewayWorker>>();
  const stopped: StoppedWorker[] = [];
  const cpuByFunction = new Map<string, number>();

  const workerOf = (key: string) => {
    let worker = workers.get(key);
    if (!worker) {
      worker = options.startWorker(key);
      workers.set(key, worker);
      worker.catch(() => workers.delete(key));
    }
    return worker;
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://gateway");
    const name = /^\/functions\/v1\/([^/?]+)/.exec(url.pathname)?.[1];
    const setting = name === undefined ? undefined : verifyJwt.get(name);
    if (name === undefined || setting === undefined) {
      response.writeHead(404, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ code: "NOT_FOUND", message: "Requested function was not found" }));
      return;
    }
    if (setting && !validJwt(request.headers.authorization, options.jwtSecret ?? "")) {
      response.writeHead(401, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ code: 401, message: "Missing authorization header" }));
      return;
    }
    const key = workerFor(name);
    const worker = await workerOf(key);
    const body = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => resolve(Buffer.concat(chunks)));
      request.on("error", reject);
    });

    const started = Date.now();
    const before = groupUsage(worker.pid);
    const abort = new AbortController();
    let breach: StoppedWorker | null = null;
    const watch = setInterval(() => {
      const now = groupUsage(worker.pid);
      const cpuMs = now.cpuMs - before.cpuMs;
      cpuByFunction.set(name, Math.max(cpuByFunction.get(name) ?? 0, cpuMs));
      const reason =
        cpuMs > limits.cpuMs
          ? "cpu"
          : now.memoryMb > limits.memoryMb
            ? "memory"
            : Date.now() - started > limits.wallMs
              ? "wall"
              : null;
      if (reason && !breach) {
        breach = { name, reason, cpuMs, memoryMb: now.memoryMb };
        abort.abort();
      }
    }, POLL_MS);

    try {
      const headers = new Headers();
      for (const [header, value] of Object.entries(request.headers))
        if (value !== undefined && !["host", "connection"].includes(header))
          headers.set(header, Array.isArray(value) ? value.join(", ") : value);
      const answer = await fetch(`${worker.url}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: ["GET", "HEAD"].includes(request.method ?? "GET") ? undefined : new Uint8Array(body),
        redirect: "manual",
        signal: abort.signal,
      });
      const payload = Buffer.from(await answer.arrayBuffer());
      const out: Record<string, string | string[]> = {};
      answer.headers.forEach((value, header) => {
        if (["content-encoding", "content-length", "transfer-encoding", "connection"].includes(header))
          return;
        out[header] = header === "set-cookie" ? answer.headers.getSetCookie() : value;
      });
      // The platform's rule: a function's HTML is served as plain text.
      if (request.method === "GET" && /^text\/html/i.test(answer.headers.get("content-type") ?? ""))
        out["content-type"] = "text/plain; charset=utf-8";
      response.writeHead(answer.status, out);
      response.end(payload);
    } catch (error) {
      if (!breach) throw error;
    } finally {
      clearInterval(watch);
      const charged = groupUsage(worker.pid).cpuMs - before.cpuMs;
      cpuByFunction.set(name, Math.max(cpuByFunction.get(name) ?? 0, charged));
    }
    const limit = breach as StoppedWorker | null;
    if (limit) {
      stopped.push(limit);
      workers.delete(key);
      await worker.stop();
      if (!response.headersSent) {
        response.writeHead(546, { "Content-Type": "application/json" });
        response.end(
          JSON.stringify({ code: "WORKER_LIMIT", message: `Function exceeded its ${limit.reason} limit` }),
        );
      }
    }
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(502, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ code: "BOOT_ERROR", message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stopped,
    cpuByFunction,
    async kill(name) {
      const key = workerFor(name);
      const worker = await workers.get(key);
      if (!worker) return;
      workers.delete(key);
      const usage = groupUsage(worker.pid);
      stopped.push({ name, reason: "killed", cpuMs: usage.cpuMs, memoryMb: usage.memoryMb });
      try {
        process.kill(-worker.pid, "SIGKILL");
      } catch {
        // Gone already.
      }
      await worker.stop();
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(
        [...workers.values()].map((worker) =>
          worker.then((started) => started.stop()).catch(() => undefined),
        ),
      );
      workers.clear();
    },
  };
}
