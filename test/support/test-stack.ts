/**
 * The local stack as the integration tests use it: started in-process on a free loopback port with
 * a fresh data folder (PGlite) or a fresh database (PostgreSQL), a clock the test can move, and
 * a log the test can read. `restart()` starts it again on the same storage.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import type { Fetch } from "../../supabase/functions/_shared/mail-events/ses.ts";
import { migrate } from "../../server/migrations.ts";
import { type RunningServer, startServer } from "../../server/start-server.ts";
import { createTestDatabase, type TestDatabase } from "./databases.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import { createBackend } from "../../supabase/functions/_shared/backend.ts";
import { readVariable } from "../../supabase/functions/_shared/contract/variables.ts";
import { contentIdentity } from "./effect-fixtures.ts";
import { freePort } from "./free-port.ts";
import { recordingLogger } from "./recording-logger.ts";
import { type GatewayOptions, type SupabaseGateway, startSupabaseGateway } from "./supabase-gateway.ts";
import { DENO_ENV, type DenoRuntime, denoExecutable } from "./deno/runtimes.ts";
import { startProcess } from "./process.ts";
import { ROOT } from "./stack.ts";
import { DATA_FOLDERS } from "./data-folders.ts";
import { copyMigratedPglite } from "./pglite-template.ts";

/** A new data folder holding an empty, migrated PGlite database (removed by the caller). */
export async function preparedDataDir(): Promise<string> {
  const dataDir = mkdtempSync(path.join(DATA_FOLDERS, "newsletter-stack-"));
  await copyMigratedPglite(dataDir);
  return dataDir;
}

/**
 * The local stack on PGlite or on PostgreSQL, or the functions' Deno host on PostgreSQL, served
 * directly or behind the stand-in for Supabase's gateway (its HTML, CPU, memory and JWT rules).
 */
export type Backend = "PGlite" | "PostgreSQL" | "Deno" | "Deno behind Supabase's gateway";

export interface TestStack {
  url: string;
  origin: string;
  dataDir: string;
  outbox: string;
  server: RunningServer;
  logs: string[];
  /** Moves the functions' clock forward. */
  advance(seconds: number): void;
  /** The functions' clock. */
  now(): Date;
  post(
    name: string,
    body: unknown,
    init?: { headers?: Record<string, string>; query?: string },
  ): Promise<Response>;
  /**
   * Delivers every mail that is due now and resolves when that is done (a delivery already
   * running is joined): after it, whatever was going to be sent has been, so a test can assert
   * that nothing more was, without waiting a fixed time.
   */
  drainMail(): Promise<void>;
  /** The states of the confirmation mail jobs to `address` (not its reminder or welcome), oldest first (`queued`, `sent`, `abandoned`). */
  mailJobsTo(address: string): Promise<string[]>;
  restart(): Promise<void>;
  close(): Promise<void>;
  database?: TestDatabase;
  /** Behind the stand-in for Supabase's gateway: what it stopped and charged. */
  gateway?: SupabaseGateway;
}

/** A call to the function `name`, as the site makes it: JSON, from the stack's own origin. */
const postTo = (
  stack: TestStack,
  name: string,
  body: unknown,
  init: { headers?: Record<string, string>; query?: string },
) =>
  fetch(`${stack.url}/functions/v1/${name}${init.query ?? ""}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stack.origin, ...init.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

async function mailJobStates(db: SqlExecutor, address: string): Promise<string[]> {
  const rows = await db.query<{ status: string }>(
    "select status from mail_jobs where kind = 'confirmation' and lower(recipient) = lower($1) order by created_at, id",
    [address],
  );
  return rows.map((row) => row.status);
}

export async function startTestStack(
  backend: Backend,
  env: Record<string, string> = {},
  postgresServerUrl?: string,
  /** What mail-events/ses fetches with (not for Deno). */
  fetch?: Fetch,
  /** The content folder the stack reads its names and mails' words from (not for Deno); default `content/`. */
  contentDir?: string,
): Promise<TestStack> {
  if (backend === "Deno") return startDenoTestStack(env, postgresServerUrl, false);
  if (backend === "Deno behind Supabase's gateway") return startDenoTestStack(env, postgresServerUrl, {});
  let database: TestDatabase | undefined;
  if (backend === "PostgreSQL") {
    if (!postgresServerUrl) throw new Error("No PostgreSQL server for this test");
    database = await createTestDatabase(postgresServerUrl);
  }
  // PostgreSQL stacks use the folder for the outbox only.
  const dataDir =
    backend === "PGlite" ? await preparedDataDir() : mkdtempSync(path.join(tmpdir(), "newsletter-stack-"));
  const { log, logs } = recordingLogger();
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const fullEnv: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_DIR: path.join(dataDir, "no-site"),
    RATE_LIMIT_PER_MINUTE: "100000",
    CONFIRMATION_MAILS_PER_CLIENT_PER_DAY: "100000",
    MAIL_RETRY_BASE_SECONDS: "0.2",
    MAIL_RETRY_MAX_SECONDS: "1",
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
  };

  const start = () => startServer({ env: fullEnv, log, now, fetch, contentDir });
  let server: RunningServer;
  try {
    server = await start();
  } catch (error) {
    // A stack that refuses to start (a test of a bad setting) leaves no folder nor database.
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
    throw error;
  }
  const stack: TestStack = {
    url: "",
    origin: "",
    dataDir,
    outbox: path.join(dataDir, "outbox"),
    server,
    logs,
    database,
    now,
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
    post(name, body, init = {}) {
      return postTo(stack, name, body, init);
    },
    async drainMail() {
      await stack.server.backend.deliverDue();
    },
    mailJobsTo: (address) => mailJobStates(stack.server.db, address),
    async restart() {
      await stack.server.close();
      // The same port keeps SITE_URL (and the links in earlier mail) valid.
      fullEnv.PORT = String(stack.server.port);
      stack.server = await start();
    },
    async close() {
      try {
        await stack.server.close();
        await database?.drop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
  stack.url = stack.server.url.replace("localhost", "127.0.0.1");
  stack.origin = stack.server.url;
  return stack;
}

const FUNCTIONS = path.join(ROOT, "supabase", "functions");
const TEST_HOST = path.join(__dirname, "deno", "functions-host.ts");

/**
 * How the tests' Deno host is started: on current Deno by itself, or (behind the gateway, as on
 * Supabase) on the Deno the Edge Runtime embeds, inside the runtime twin.
 */
export function denoHostCommand(
  runtime: DenoRuntime,
  entry = TEST_HOST,
): { command: string; args: string[] } {
  const permissions = ["--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys"];
  const config = ["--config", path.join(FUNCTIONS, "deno.json")];
  return {
    command: denoExecutable(runtime),
    args:
      runtime === "edge"
        ? ["run", ...permissions, ...config, path.join(__dirname, "deno", "edge-runtime-twin.ts"), entry]
        : ["run", ...permissions, ...config, entry],
  };
}

/**
 * The functions served by Deno (test/support/deno/functions-host.ts: the core's app, as on
 * Supabase) on a fresh database of the test PostgreSQL, with the same clock, log, outbox and
 * restart as the local stack's. What the host itself does not expose (the operator's counts and
 * the purge) runs from here on the same database.
 */
/**
 * The tests' Deno host in the runtime twin behind the stand-in for Supabase's gateway, with the
 * gateway's options (its limits, `beforeunloadCpuPct`) where a benchmark or test sets them.
 */
export function startGatewayTestStack(
  env: Record<string, string>,
  postgresServerUrl: string | undefined,
  gatewayOptions: GatewayStackOptions = {},
): Promise<TestStack> {
  return startDenoTestStack(env, postgresServerUrl, gatewayOptions);
}

type GatewayStackOptions = Pick<GatewayOptions, "limits" | "beforeunloadCpuPct">;

/** `behindGateway`: false for plain current Deno, else the gateway's options. */
async function startDenoTestStack(
  env: Record<string, string>,
  postgresServerUrl: string | undefined,
  behindGateway: false | GatewayStackOptions,
): Promise<TestStack> {
  if (!postgresServerUrl) throw new Error("No PostgreSQL server for this test");
  const database = await createTestDatabase(postgresServerUrl);
  const db = createPostgresExecutor(database.url, { max: 2 });
  await migrate(db);
  const dataDir = mkdtempSync(path.join(tmpdir(), "newsletter-deno-"));
  const clockFile = path.join(dataDir, "clock");
  writeFileSync(clockFile, "0");
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  // Behind the gateway, the site's address (and the links in mail) is the gateway's.
  const port = await freePort();
  // A caller that must know the gateway's address first (the site's build points at it) names it
  // in FUNCTIONS_URL.
  const named = readVariable(env, "FUNCTIONS_URL");
  const gatewayPort = !behindGateway ? port : named ? Number(new URL(named).port) : await freePort();
  const url = `http://localhost:${gatewayPort}`;
  const identity = contentIdentity();
  // The operator's side, on the same database: counts, the list, the purge. No feature: it serves
  // and sends nothing.
  const operator = createBackend(
    { SITE_URL: url, ...env },
    {
      db,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      site: () => ({
        identity: async () => identity,
        edition: () => Promise.reject(new Error("the Deno host reads the editions")),
        latestEdition: async () => null,
      }),
      features: [],
      senderName: () => "operator",
      now,
    },
  );
  type Host = Awaited<ReturnType<typeof startProcess>>;
  /** The host's processes that run: one by itself; behind the gateway, a worker and those retiring. */
  const hosts = new Set<Host>();
  let earlier = "";
  const start = async (listenOn: number): Promise<Host> => {
    const { command, args } = denoHostCommand(behindGateway ? "edge" : "current");
    const started = await startProcess(command, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        ...DENO_ENV,
        DATABASE_URL: database.url,
        SMTP_URL: "",
        SITE_URL: url,
        FUNCTION_PORT: String(listenOn),
        CLOCK_FILE: clockFile,
        OUTBOX_DIR: path.join(dataDir, "outbox"),
        SENDER_IDENTITY: JSON.stringify(identity),
        RATE_LIMIT_PER_MINUTE: "100000",
        CONFIRMATION_MAILS_PER_CLIENT_PER_DAY: "100000",
        MAIL_RETRY_BASE_SECONDS: "0.2",
        MAIL_RETRY_MAX_SECONDS: "1",
        ...env,
      },
      ready: /Listening on/,
      timeoutMs: 120_000,
    });
    hosts.add(started);
    return started;
  };
  const stopHost = async (started: Host) => {
    hosts.delete(started);
    earlier += started.output();
    await started.stop();
  };
  let gateway: SupabaseGateway | undefined;
  const startGateway = async () => {
    gateway = await startSupabaseGateway({
      ...(behindGateway || {}),
      port: gatewayPort,
      // The tests' host serves every function from one worker; a retiring one finishes its work
      // beside the next, each on a port of its own.
      workerFor: () => "functions-host",
      startWorker: async () => {
        const workerPort = await freePort();
        const started = await start(workerPort);
        return {
          url: `http://127.0.0.1:${workerPort}`,
          pid: started.child.pid as number,
          stop: () => stopHost(started),
        };
      },
    });
  };
  if (behindGateway) await startGateway();
  else await start(port);
  const server = {
    url,
    port,
    backend: operator,
    db,
    close: async () => undefined,
  } as unknown as RunningServer;
  const stack: TestStack = {
    url: url.replace("localhost", "127.0.0.1"),
    origin: url,
    dataDir,
    outbox: path.join(dataDir, "outbox"),
    server,
    get logs() {
      return `${earlier}${[...hosts].map((started) => started.output()).join("")}`.split("\n");
    },
    database,
    now,
    advance(seconds) {
      offsetMs += seconds * 1000;
      writeFileSync(clockFile, String(offsetMs));
    },
    post(name, body, init = {}) {
      return postTo(stack, name, body, init);
    },
    /** The host delivers after each answer: done when no due mail is left queued and unclaimed. */
    async drainMail() {
      for (const deadline = Date.now() + 10_000; ;) {
        const [row] = await db.query<{ due: number }>(
          "select count(*)::int as due from mail_jobs where status = 'queued' and next_attempt_at <= $1::timestamptz",
          [now().toISOString()],
        );
        if (row.due === 0) return;
        if (Date.now() > deadline) throw new Error(`${row.due} due mails were not delivered`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    mailJobsTo: (address) => mailJobStates(db, address),
    async restart() {
      if (gateway) {
        // Stops its worker; the next request boots a new one, as on the platform.
        await gateway.stop();
        await startGateway();
        return;
      }
      await Promise.all([...hosts].map(stopHost));
      await start(port);
    },
    get gateway() {
      return gateway;
    },
    async close() {
      try {
        await gateway?.stop();
        await Promise.all([...hosts].map(stopHost));
        await db.close();
        await database.drop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
  return stack;
}
