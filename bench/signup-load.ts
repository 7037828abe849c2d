/**
 * `npm run bench:signup`: the signup endpoint of the local stack under load, on PGlite and on
 * PostgreSQL (mail to the outbox, as in local use), beside a bare Node `http` server answering 200
 * on the same machine. Prints a table and writes bench/signup-results.json.
 *
 * Each server runs in its own process so autocannon does not share its event loop. Every request
 * signs up a new address: the full path (rate-limit count, row, mail job, then the mail file).
 * BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 10) change the run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer } from "../server/start-server.ts";
import { openStorage } from "../server/storage.ts";
import { createTestDatabase, type TestDatabase } from "../test/support/databases.ts";
import { type PostgresServer, postgresAvailable, startPostgres } from "../test/support/postgres-server.ts";
import { outboxFiles, readOutbox, recipients } from "../test/support/outbox.ts";
import { startProcess } from "../test/support/process.ts";
import { textTable } from "./table.ts";
import { readNumberVariable, readVariable } from "../supabase/functions/_shared/contract/variables.ts";

const ROOT = path.resolve(__dirname, "..");
const SECONDS = readNumberVariable(process.env, "BENCH_SECONDS");
const CONNECTIONS = readNumberVariable(process.env, "BENCH_CONNECTIONS");
const WARMUP_SECONDS = 2;

/** The parts of autocannon's API used here (it ships no TypeScript types). */
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type LoadRequest = AutocannonRequest & { setupRequest?: (request: AutocannonRequest) => AutocannonRequest };
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests?: LoadRequest[];
}) => Promise<AutocannonResult>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon") as Autocannon;

interface Scenario {
  name: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Signups the database holds: every one answered 200, including those in flight when a run stopped. */
  acceptedSignups?: number;
  mailsWritten?: number;
  /** Signups autocannon saw answered 200: fewer, by the requests in flight when each run stopped. */
  answeredCounted?: number;
  /** Stored addresses without exactly one mail, and mails to an address not stored: both must be empty. */
  addressesWithoutOneMail?: string[];
  mailCatchUpSeconds?: number;
  ratioToBare?: number;
}

/** The child side: one local stack (`--serve-stack`) or the bare server (`--serve-bare`). */
async function serveChild(mode: string): Promise<void> {
  if (mode === "--serve-bare") {
    const { createServer } = await import("node:http");
    const server = createServer((request, response) => {
      // Read the body like the stack does, then answer what a signup answers.
      request.resume();
      request.on("end", () => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"status":"pending"}');
      });
    });
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      console.log(
        `Listening on http://localhost:${typeof address === "object" && address ? address.port : 0}`,
      );
    });
    process.on("SIGTERM", () => server.close(() => process.exit(0)));
    return;
  }
  const quiet = {
    info: () => undefined,
    warn: (m: string) => console.error(m),
    error: (m: string) => console.error(m),
  };
  const server = await startServer({ log: quiet });
  console.log(`Listening on ${server.url}`);
  process.on("SIGTERM", () => {
    void server.close().then(() => process.exit(0));
  });
}

/** One server in its own process (this file with `mode`), resolved once it listens. */
async function startChild(mode: string, env: Record<string, string>) {
  const started = await startProcess(
    process.execPath,
    [path.join(ROOT, "scripts/run-typescript.cjs"), __filename, mode],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      ready: /Listening on (http:\/\/\S+)/,
    },
  );
  // A stack finishes the mail in flight before it exits: give it time.
  return { url: started.ready[1].replace("localhost", "127.0.0.1"), stop: () => started.stop(15_000) };
}

let sequence = 0;
const signupRequests = (): LoadRequest[] => [
  {
    method: "POST",
    path: "/functions/v1/send-confirmation",
    headers: { "content-type": "application/json" },
    setupRequest: (request: AutocannonRequest) => ({
      ...request,
      body: JSON.stringify({ email: `load-${process.pid}-${++sequence}@example.com` }),
    }),
  },
];

/**
 * Waits until `outbox` holds at least `expected` mails and has stopped growing (or 60 s pass).
 * autocannon does not count the requests still in flight when a run ends, which the server
 * accepts and mails too, so `expected` is a lower bound; the database says how many there are.
 */
async function untilMailed(outbox: string, expected: number): Promise<{ mails: number; seconds: number }> {
  const started = Date.now();
  let last = -1;
  let steadySince = Date.now();
  while (Date.now() - started < 60_000) {
    const count = outboxFiles(outbox).length;
    if (count !== last) [last, steadySince] = [count, Date.now()];
    if (count >= expected && Date.now() - steadySince >= 1_000) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { mails: outboxFiles(outbox).length, seconds: Number(((Date.now() - started) / 1000).toFixed(1)) };
}

/**
 * One confirmation mail per accepted address, read after the stack has stopped: the addresses the
 * database holds (each signup a new address) against the outbox's recipients. Returns every
 * address that breaks it, with what it got.
 */
async function oneMailPerAddress(dataDir: string, databaseUrl: string | undefined, outbox: string) {
  const storage = await openStorage({ dataDir, databaseUrl: databaseUrl || undefined });
  let stored: string[];
  try {
    stored = (await storage.db.query<{ email: string }>("select lower(email) as email from subscribers")).map(
      (row) => row.email,
    );
  } finally {
    await storage.close();
  }
  const mailed = new Map<string, number>();
  for (const address of (await readOutbox(outbox)).flatMap(recipients)) {
    mailed.set(address.toLowerCase(), (mailed.get(address.toLowerCase()) ?? 0) + 1);
  }
  const storedSet = new Set(stored);
  const broken = [
    ...stored
      .filter((address) => mailed.get(address) !== 1)
      .map((address) => `${address}: ${mailed.get(address) ?? 0} mails`),
    ...[...mailed.keys()]
      .filter((address) => !storedSet.has(address))
      .map((address) => `${address}: mailed, not stored`),
  ];
  return { accepted: stored.length, broken };
}

async function measure(name: string, url: string, outbox?: string): Promise<Scenario> {
  const warmup = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: WARMUP_SECONDS,
    requests: signupRequests(),
  });
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: signupRequests(),
  });
  const scenario: Scenario = {
    name,
    rps: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  if (outbox) {
    // Mail goes out after the answers; the sender gets a minute to catch up with every signup
    // answered 200 (warm-up included).
    const answered = warmup.requests.total - warmup.non2xx + result.requests.total - result.non2xx;
    const { seconds } = await untilMailed(outbox, answered);
    scenario.answeredCounted = answered;
    scenario.mailCatchUpSeconds = seconds;
  }
  return scenario;
}

async function stackScenario(name: string, extraEnv: Record<string, string>): Promise<Scenario> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "newsletter-bench-"));
  const env = {
    PORT: "0",
    DATA_DIR: dataDir,
    PUBLIC_DIR: path.join(dataDir, "no-site"),
    // One client sends everything here; the per-client limits would measure 429s and held mail.
    RATE_LIMIT_PER_MINUTE: "100000000",
    CONFIRMATION_MAILS_PER_CLIENT_PER_DAY: "100000000",
    // Never the operator's own mail server or database from the shell: mail goes to the outbox,
    // data to PGlite unless the scenario names a database.
    SMTP_URL: "",
    DATABASE_URL: "",
    ...extraEnv,
  };
  const outbox = path.join(dataDir, "outbox");
  const stack = await startChild("--serve-stack", env);
  try {
    let scenario: Scenario;
    try {
      scenario = await measure(name, stack.url, outbox);
    } finally {
      await stack.stop();
    }
    const { accepted, broken } = await oneMailPerAddress(dataDir, readVariable(env, "DATABASE_URL"), outbox);
    return {
      ...scenario,
      acceptedSignups: accepted,
      mailsWritten: outboxFiles(outbox).length,
      addressesWithoutOneMail: broken,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.error(
    `Signup load: ${CONNECTIONS} connections, ${SECONDS} s per run after a ${WARMUP_SECONDS} s warm-up...`,
  );
  const scenarios: Scenario[] = [];

  const bare = await startChild("--serve-bare", {});
  try {
    scenarios.push(await measure("bare Node http (200)", bare.url));
  } finally {
    await bare.stop();
  }

  scenarios.push(await stackScenario("local stack, PGlite", {}));

  let postgres: PostgresServer | undefined;
  let database: TestDatabase | undefined;
  try {
    const serverUrl =
      readVariable(process.env, "TEST_DATABASE_URL") ??
      (postgresAvailable() ? (postgres = await startPostgres()).url : undefined);
    if (serverUrl) {
      database = await createTestDatabase(serverUrl);
      scenarios.push(await stackScenario("local stack, PostgreSQL", { DATABASE_URL: database.url }));
    } else {
      console.error(
        "PostgreSQL skipped: no binaries at /usr/lib/postgresql/15/bin and no TEST_DATABASE_URL.",
      );
    }
  } finally {
    await database?.drop();
    postgres?.stop();
  }

  const baseline = scenarios[0].rps;
  for (const scenario of scenarios) scenario.ratioToBare = Number((scenario.rps / baseline).toFixed(3));

  const table = textTable(
    ["server", "req/s", "p50", "p99", "requests", "non-2xx", "errors", "mails / signups", "vs bare"],
    scenarios.map((s) => [
      s.name,
      String(s.rps),
      `${s.p50Ms} ms`,
      `${s.p99Ms} ms`,
      String(s.requests),
      String(s.non2xx),
      String(s.errors),
      s.mailsWritten === undefined
        ? "-"
        : `${s.mailsWritten} / ${s.acceptedSignups} (${s.answeredCounted} counted, +${s.mailCatchUpSeconds} s)`,
      `${((s.ratioToBare ?? 0) * 100).toFixed(1)}%`,
    ]),
  );
  console.log(table);
  console.log(
    "mails / signups: confirmation mails in the outbox / addresses the database holds (warm-up included); counted: the 200s autocannon saw, fewer by the requests in flight when each run stopped, which the server still answers and mails; and the seconds the sender needed after the run.",
  );
  for (const s of scenarios) {
    // Every signup is a new address: exactly one mail each, none missing, none twice, none stray.
    const broken = s.addressesWithoutOneMail ?? [];
    if (broken.length > 0) {
      console.error(
        `${s.name}: ${s.acceptedSignups} addresses stored, ${s.mailsWritten} mails; not one mail each:\n  ${broken.slice(0, 20).join("\n  ")}`,
      );
      process.exitCode = 1;
    }
  }
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", node: process.version },
    connections: CONNECTIONS,
    seconds: SECONDS,
    scenarios,
  };
  writeFileSync(path.join(ROOT, "bench/signup-results.json"), `${JSON.stringify(results, null, 2)}\n`);
}

const mode = process.argv[2];
if (mode?.startsWith("--serve-")) {
  void serveChild(mode);
} else {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
