/**
 * The local stack as the integration tests use it: started in-process on a free loopback port with
 * a fresh data folder (PGlite) or a fresh database (PostgreSQL), a clock the test can move, and
 * a log the test can read. `restart()` starts it again on the same storage.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Logger } from "../../supabase/functions/_shared/logger.ts";
import { type RunningServer, startServer } from "../start-server.ts";
import { createTestDatabase, type TestDatabase } from "./databases.ts";

export type Backend = "PGlite" | "PostgreSQL";

export interface TestStack {
  url: string;
  origin: string;
  dataDir: string;
  outbox: string;
  server: RunningServer;
  logs: string[];
  /** Moves the functions' clock forward. */
  advance(seconds: number): void;
  post(name: string, body: unknown, init?: { headers?: Record<string, string>; query?: string }): Promise<Response>;
  restart(): Promise<void>;
  close(): Promise<void>;
  database?: TestDatabase;
}

export async function startTestStack(
  backend: Backend,
  env: Record<string, string> = {},
  postgresServerUrl?: string,
): Promise<TestStack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "newsletter-stack-"));
  let database: TestDatabase | undefined;
  if (backend === "PostgreSQL") {
    if (!postgresServerUrl) throw new Error("No PostgreSQL server for this test");
    database = await createTestDatabase(postgresServerUrl);
  }
  const logs: string[] = [];
  const log: Logger = {
    info: (message) => logs.push(message),
    warn: (message) => logs.push(`warning: ${message}`),
    error: (message) => logs.push(`error: ${message}`),
  };
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const fullEnv: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_DIR: path.join(dataDir, "no-site"),
    RATE_LIMIT_PER_MINUTE: "100000",
    MAIL_RETRY_BASE_SECONDS: "0.2",
    MAIL_RETRY_MAX_SECONDS: "1",
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
  };

  const start = () => startServer({ env: fullEnv, log, now });
  const stack: TestStack = {
    url: "",
    origin: "",
    dataDir,
    outbox: path.join(dataDir, "outbox"),
    server: await start(),
    logs,
    database,
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
    post(name, body, init = {}) {
      return fetch(`${stack.url}/functions/v1/${name}${init.query ?? ""}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: stack.origin, ...init.headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
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
