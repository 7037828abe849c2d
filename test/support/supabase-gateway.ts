/**
 * A stand-in for Supabase's Edge Functions gateway and the runtime's supervisor, for what cannot
 * run here: it serves workers the way the hosted platform does, by its published rules
 * (https://supabase.com/docs/guides/functions/limits, .../functions/auth) and by what the runtime's
 * source does (https://github.com/supabase/edge-runtime/blob/b1edf453/crates/base/src/worker/supervisor/strategy_per_worker.rs, its limits in
 * https://github.com/supabase/edge-runtime/blob/b1edf453/.cargo/config.toml), so a test fails where the platform would.
 *
 * - `verify_jwt`, per function, from `supabase/config.toml`: on, a request without a valid
 *   `Authorization: Bearer <JWT>` (HS256, the project's secret) is answered 401 before the worker.
 * - A GET answered with `text/html` reaches the browser as `text/plain` (without a custom domain).
 * - CPU is the worker's, across every request it serves and the work it does after them, from its
 *   boot: the CPU time of its JavaScript thread (the runtime times the isolate's thread,
 *   CLOCK_THREAD_CPUTIME_ID; the pid a worker reports must be the runtime's own process). Past the
 *   soft limit (1 s) or half its wall clock the worker retires: it takes no new request (the next
 *   one boots a new worker) and is dropped once idle, after `beforeunload` with "early_drop". Past
 *   the hard limit (2 s of CPU), 256 MB or its whole wall clock (150 s on the free plan) it is
 *   stopped at once, and each request in flight gets 546 `WORKER_LIMIT`.
 * - `beforeunloadCpuPct`: the runtime's `--dispatch-beforeunload-cpu-ratio`, unset by default as
 *   there (and not documented for the hosted platform): at that share of the hard limit the worker
 *   gets `beforeunload` with "cpu".
 *
 * A worker that is the runtime twin (deno/edge-runtime-twin.ts) is told of `beforeunload` and of
 * its retirement through the twin's control paths; another worker (a plain test server) is just
 * stopped once its requests are done.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { readBody } from "./loopback-http.ts";
import { ROOT } from "./stack.ts";

export interface GatewayWorker {
  /** Where the worker listens: its origin, serving `/functions/v1/<name>/...` as the gateway forwards it. */
  url: string;
  /** The runtime's process (its main thread runs the JavaScript), for CPU and memory. */
  pid: number;
  stop(): Promise<void>;
}

export interface GatewayLimits {
  /** CPU (ms) after which the worker retires. */
  cpuSoftMs: number;
  /** CPU (ms) after which the worker is stopped. */
  cpuHardMs: number;
  memoryMb: number;
  /** A worker's life; it retires at half. */
  wallMs: number;
}

/**
 * The hosted platform's limits: the runtime's own (SUPABASE_RESOURCE_LIMIT_CPU_SOFT_MS 1000,
 * _HARD_MS 2000, _MEM_MB 256, read where the opening comment says) and the free plan's wall clock
 * (paid plans: 400 s).
 */
export const SUPABASE_LIMITS: GatewayLimits = {
  cpuSoftMs: 1_000,
  cpuHardMs: 2_000,
  memoryMb: 256,
  wallMs: 150_000,
};

export interface GatewayOptions {
  /** Starts the worker that serves `name` (called again after a stop). */
  startWorker(name: string): Promise<GatewayWorker>;
  /** Which function a worker serves: one worker per function, or one for all (the tests' host). */
  workerFor?(name: string): string;
  limits?: Partial<GatewayLimits>;
  /** Share of `cpuHardMs` (percent) at which a worker gets `beforeunload` "cpu"; unset: never. */
  beforeunloadCpuPct?: number;
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

export interface RetiredWorker {
  name: string;
  reason: "cpu" | "wall";
  /** The worker's CPU when it retired, and when it was dropped. */
  cpuMs: number;
  droppedAtCpuMs?: number;
}

export interface SupabaseGateway {
  url: string;
  /** Workers the gateway stopped, and why. */
  stopped: StoppedWorker[];
  /** Workers that retired (soft limit, half their wall clock), and their CPU then and at the end. */
  retired: RetiredWorker[];
  /** The most CPU any one request was charged (the worker's CPU during it), per function, in ms. */
  cpuByFunction: Map<string, number>;
  /** The most CPU any worker serving the function reached in its life, in ms. */
  workerCpuByFunction: Map<string, number>;
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

/**
 * The CPU (ms) of process `pid`'s main thread, where its runtime runs the JavaScript, and the
 * process's resident memory (MB); null once it is gone.
 */
export function workerUsage(pid: number): { cpuMs: number; memoryMb: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    // Fields after the command's closing parenthesis: state ppid ... utime(14) stime(15) ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    if (fields[0] === "Z") return null;
    return {
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND,
      memoryMb: (pages * PAGE_KB) / 1024,
    };
  } catch {
    return null;
  }
}

const POLL_MS = 10;

/** A worker as the supervisor sees it. */
interface Supervised {
  name: string;
  worker: GatewayWorker;
  bornAt: number;
  cpuMs: number;
  memoryMb: number;
  /** Each request in flight, aborted (546) when the worker is stopped under it. */
  inFlight: Set<AbortController>;
  retired: RetiredWorker | null;
  /** Why it was stopped, once it is. */
  stop: StoppedWorker | null;
  /** Retired and idle: told to go (or, not being the twin, stopped). */
  dropping: boolean;
  beforeunloadSent: boolean;
  watch: ReturnType<typeof setInterval>;
  /** Resolves once its process is gone; `ended` says so. */
  gone: Promise<void>;
  /** The gateway's entry for it while it takes new requests. */
  entry?: Promise<Supervised>;
  ended(): void;
}

export async function startSupabaseGateway(options: GatewayOptions): Promise<SupabaseGateway> {
  const limits = { ...SUPABASE_LIMITS, ...options.limits };
  const verifyJwt = verifyJwtSettings(
    readFileSync(options.configToml ?? path.join(ROOT, "supabase", "config.toml"), "utf8"),
  );
  const workerFor = options.workerFor ?? ((name: string) => name);
  /** The worker that takes new requests, per key; a retired one is no longer here. */
  const serving = new Map<string, Promise<Supervised>>();
  const everyWorker = new Set<Supervised>();
  const stopped: StoppedWorker[] = [];
  const retired: RetiredWorker[] = [];
  const cpuByFunction = new Map<string, number>();
  const workerCpuByFunction = new Map<string, number>();
  const peak = (map: Map<string, number>, name: string, value: number) =>
    map.set(name, Math.max(map.get(name) ?? 0, value));

  const control = (supervised: Supervised, what: string) =>
    fetch(`${supervised.worker.url}/_edge-runtime/${what}`, { method: "POST" }).then(
      (answer) => answer.status,
      () => 0,
    );

  function retire(supervised: Supervised, key: string, reason: RetiredWorker["reason"]): void {
    if (supervised.retired || supervised.stop) return;
    supervised.retired = { name: supervised.name, reason, cpuMs: supervised.cpuMs };
    retired.push(supervised.retired);
    if (supervised.entry && serving.get(key) === supervised.entry) serving.delete(key);
    dropOnceIdle(supervised);
  }

  /**
   * A retired worker goes once the requests the gateway gave it are answered: the twin is told and
   * goes when its background work is done too; another worker is stopped then.
   */
  function dropOnceIdle(supervised: Supervised): void {
    if (!supervised.retired || supervised.inFlight.size > 0 || supervised.dropping) return;
    supervised.dropping = true;
    void control(supervised, "retire").then((status) => {
      if (status !== 204) void supervised.worker.stop();
    });
  }

  function halt(supervised: Supervised, reason: StoppedWorker["reason"]): void {
    if (supervised.stop) return;
    supervised.stop = {
      name: supervised.name,
      reason,
      cpuMs: supervised.cpuMs,
      memoryMb: supervised.memoryMb,
    };
    stopped.push(supervised.stop);
    try {
      process.kill(-supervised.worker.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
    for (const request of supervised.inFlight) request.abort();
  }

  async function boot(name: string, key: string): Promise<Supervised> {
    const worker = await options.startWorker(key);
    let ended: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => (ended = resolve));
    const supervised: Supervised = {
      name,
      worker,
      bornAt: Date.now(),
      cpuMs: 0,
      memoryMb: 0,
      inFlight: new Set(),
      retired: null,
      stop: null,
      dropping: false,
      beforeunloadSent: false,
      watch: setInterval(() => check(supervised, key), POLL_MS),
      gone,
      ended: () => ended(),
    };
    everyWorker.add(supervised);
    void supervised.gone.then(() => {
      clearInterval(supervised.watch);
      everyWorker.delete(supervised);
      if (supervised.retired) supervised.retired.droppedAtCpuMs = supervised.cpuMs;
      if (supervised.entry && serving.get(key) === supervised.entry) serving.delete(key);
      void worker.stop();
    });
    return supervised;
  }

  function check(supervised: Supervised, key: string): void {
    const usage = workerUsage(supervised.worker.pid);
    if (!usage) return supervised.ended();
    supervised.cpuMs = usage.cpuMs;
    supervised.memoryMb = usage.memoryMb;
    peak(workerCpuByFunction, supervised.name, usage.cpuMs);
    const age = Date.now() - supervised.bornAt;
    if (usage.cpuMs >= limits.cpuHardMs) return halt(supervised, "cpu");
    if (usage.memoryMb > limits.memoryMb) return halt(supervised, "memory");
    if (age >= limits.wallMs) return halt(supervised, "wall");
    if (
      options.beforeunloadCpuPct !== undefined &&
      !supervised.beforeunloadSent &&
      usage.cpuMs >= (limits.cpuHardMs * options.beforeunloadCpuPct) / 100
    ) {
      supervised.beforeunloadSent = true;
      void control(supervised, "beforeunload?reason=cpu");
    }
    if (usage.cpuMs >= limits.cpuSoftMs) retire(supervised, key, "cpu");
    else if (age >= limits.wallMs / 2) retire(supervised, key, "wall");
  }

  const workerOf = (name: string, key: string) => {
    let worker = serving.get(key);
    if (!worker) {
      const booting = boot(name, key);
      worker = booting;
      serving.set(key, booting);
      booting.then(
        (supervised) => (supervised.entry = booting),
        () => serving.delete(key),
      );
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
    const body = await readBody(request);
    const key = workerFor(name);
    let supervised = await workerOf(name, key);
    // A worker that retired while this request waited takes it no more: the next one does.
    while (supervised.retired || supervised.stop) {
      if (serving.get(key) === supervised.entry) serving.delete(key);
      supervised = await workerOf(name, key);
    }
    const abort = new AbortController();
    supervised.inFlight.add(abort);
    // Read now: the last poll may be older than the worker's boot.
    const before = workerUsage(supervised.worker.pid)?.cpuMs ?? supervised.cpuMs;
    try {
      const headers = new Headers();
      for (const [header, value] of Object.entries(request.headers))
        if (value !== undefined && !["host", "connection"].includes(header))
          headers.set(header, Array.isArray(value) ? value.join(", ") : value);
      const answer = await fetch(`${supervised.worker.url}${url.pathname}${url.search}`, {
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
      if (!supervised.stop) throw error;
    } finally {
      supervised.inFlight.delete(abort);
      const usage = workerUsage(supervised.worker.pid);
      peak(cpuByFunction, name, (usage?.cpuMs ?? supervised.cpuMs) - before);
      dropOnceIdle(supervised);
    }
    const limit = supervised.stop as StoppedWorker | null;
    if (limit && !response.headersSent) {
      response.writeHead(546, { "Content-Type": "application/json" });
      response.end(
        JSON.stringify({ code: "WORKER_LIMIT", message: `Function exceeded its ${limit.reason} limit` }),
      );
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
    retired,
    cpuByFunction,
    workerCpuByFunction,
    async kill(name) {
      const current = await serving.get(workerFor(name))?.catch(() => undefined);
      if (!current) return;
      halt(current, "killed");
      await current.gone;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...serving.values()]);
      serving.clear();
      await Promise.all(
        [...everyWorker].map(async (supervised) => {
          clearInterval(supervised.watch);
          await supervised.worker.stop();
        }),
      );
      everyWorker.clear();
    },
  };
}
