/**
 * `npm run bench:send`: the Effect of the Day sent to 10,000 confirmed subscribers, on PGlite and
 * on PostgreSQL, to an SMTP sink on loopback, beside a bare nodemailer pool sending the same
 * mails to the same sink (the ceiling: no database, no bookkeeping). Counts every recipient the
 * sink accepted, so duplicates and missing mails are measured, not assumed. Prints a table and
 * writes bench/send-results.json. BENCH_SUBSCRIBERS (default 10000) changes the list.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { parseConfig } from "../supabase/functions/_shared/config.ts";
import { createPostgresExecutor } from "../supabase/functions/_shared/db/postgres-executor.ts";
import { mailSettings } from "../supabase/functions/_shared/mail/list-headers.ts";
import { effectMail } from "../supabase/functions/_shared/effect-sending/edition.ts";
import type { Logger } from "../supabase/functions/_shared/logger.ts";
import type { SqlExecutor } from "../supabase/functions/_shared/db/sql-executor.ts";
import { newToken } from "../supabase/functions/_shared/subscriptions/tokens.ts";
import { effectContext, runEffectCommand } from "../server/effect-commands.ts";
import { migrate } from "../server/migrations.ts";
import { createPgliteExecutor } from "../server/pglite-executor.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import {
  fixtureEdition,
  publishEdition,
  readerAddress,
  seedConfirmed,
  contentIdentity,
} from "../test/support/effect-fixtures.ts";
import { freePort } from "../test/support/free-port.ts";
import { postgresAvailable, startPostgres } from "../test/support/postgres-server.ts";
import { markdownTable, textTable } from "./table.ts";
import { readNumberVariable } from "../supabase/functions/_shared/contract/variables.ts";

const ROOT = path.resolve(__dirname, "..");
const RESULTS = path.join(ROOT, "bench", "send-results.json");
const SUBSCRIBERS = readNumberVariable(process.env, "BENCH_SUBSCRIBERS");
const CONNECTIONS = 5;
const DATE = "2026-11-23";
const SITE = "https://www.thepurposeeffect.example";

interface Scenario {
  name: string;
  seconds: number;
  mailsPerSecond: number;
  delivered: number;
  duplicates: number;
  missing: number;
  ratioToCeiling?: number;
}

/** An SMTP server that accepts everything and counts each recipient. */
async function startSink() {
  const counts = new Map<string, number>();
  const port = await freePort();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    disableReverseLookup: true,
    onRcptTo(address, _session, callback) {
      callback();
      void address;
    },
    onData(stream, session, callback) {
      stream.on("data", () => undefined);
      stream.on("end", () => {
        for (const { address } of session.envelope.rcptTo)
          counts.set(address, (counts.get(address) ?? 0) + 1);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    counts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function tally(name: string, seconds: number, counts: Map<string, number>): Scenario {
  let delivered = 0;
  let duplicates = 0;
  let missing = 0;
  for (let i = 1; i <= SUBSCRIBERS; i++) {
    const count = counts.get(readerAddress(i)) ?? 0;
    delivered += count;
    if (count === 0) missing += 1;
    if (count > 1) duplicates += count - 1;
  }
  return {
    name,
    seconds: Number(seconds.toFixed(2)),
    mailsPerSecond: Math.round(delivered / seconds),
    delivered,
    duplicates,
    missing,
  };
}

async function ceiling(): Promise<Scenario> {
  const sink = await startSink();
  const config = parseConfig({ SITE_URL: SITE });
  const edition = fixtureEdition(DATE, SITE);
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: Number(new URL(sink.url).port),
    secure: false,
    pool: true,
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
  });
  const messages = Array.from({ length: SUBSCRIBERS }, (_, i) =>
    effectMail(mailSettings(config, contentIdentity()), edition, {
      to: readerAddress(i + 1),
      unsubscribeToken: newToken(),
    }),
  );
  const started = performance.now();
  await Promise.all(messages.map((message) => transport.sendMail(message)));
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  await sink.close();
  return tally("bare nodemailer pool (ceiling)", seconds, sink.counts);
}

async function ours(name: string, db: SqlExecutor, env: Record<string, string>): Promise<Scenario> {
  const sink = await startSink();
  const publicDir = mkdtempSync(path.join(os.tmpdir(), "bench-send-"));
  publishEdition(publicDir, fixtureEdition(DATE, SITE));
  await seedConfirmed(db, SUBSCRIBERS);
  const fullEnv = {
    ...env,
    SITE_URL: SITE,
    SMTP_URL: sink.url,
    MAIL_RATE_PER_SECOND: "0",
    SMTP_MAX_CONNECTIONS: String(CONNECTIONS),
  };
  const quiet: Logger = { info: () => undefined, warn: console.warn, error: console.error };
  const started = performance.now();
  await runEffectCommand(
    { action: "send", date: DATE, retryUnknown: false },
    effectContext(fullEnv, { db, dataDir: publicDir, publicDir, log: quiet, identity: contentIdentity() }),
  );
  const seconds = (performance.now() - started) / 1000;
  await sink.close();
  rmSync(publicDir, { recursive: true, force: true });
  return tally(name, seconds, sink.counts);
}

async function main(): Promise<void> {
  console.log(
    `Effect of the Day to ${SUBSCRIBERS} subscribers, ${CONNECTIONS} SMTP connections, loopback sink...`,
  );
  const scenarios: Scenario[] = [await ceiling()];
  console.log(`  ${scenarios[0].name}: ${scenarios[0].mailsPerSecond} mails/s`);

  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-send-pglite-"));
  const pglite = await createPgliteExecutor(path.join(dir, "pglite"));
  try {
    await migrate(pglite);
    scenarios.push(await ours("sender, PGlite", pglite, {}));
  } finally {
    await pglite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`  ${scenarios[1].name}: ${scenarios[1].mailsPerSecond} mails/s`);

  if (postgresAvailable()) {
    const server = await startPostgres();
    try {
      const database = await createTestDatabase(server.url);
      const db = createPostgresExecutor(database.url);
      await migrate(db);
      scenarios.push(await ours("sender, PostgreSQL", db, {}));
      await db.close();
      await database.drop();
    } finally {
      server.stop();
    }
    console.log(`  ${scenarios[2].name}: ${scenarios[2].mailsPerSecond} mails/s`);
  }
  for (const scenario of scenarios)
    scenario.ratioToCeiling = scenario.mailsPerSecond / scenarios[0].mailsPerSecond;
  writeFileSync(
    RESULTS,
    `${JSON.stringify({ date: new Date().toISOString(), subscribers: SUBSCRIBERS, connections: CONNECTIONS, cpus: os.cpus().length, scenarios }, null, 2)}\n`,
  );
  console.log(`\n${textTable(HEADER, rows(scenarios))}\n\nWrote ${path.relative(ROOT, RESULTS)}.`);
}

const HEADER = ["sender", "mails/s", "seconds", "delivered", "duplicates", "missing", "vs ceiling"];
const rows = (scenarios: Scenario[]) =>
  scenarios.map((scenario) => [
    scenario.name,
    String(scenario.mailsPerSecond),
    scenario.seconds.toFixed(1),
    String(scenario.delivered),
    String(scenario.duplicates),
    String(scenario.missing),
    `${((scenario.ratioToCeiling ?? 0) * 100).toFixed(0)}%`,
  ]);

/** The send table for bench/RESULTS.md and the README, from the last `npm run bench:send`. */
export function sendSummary(): string {
  const results = JSON.parse(readFileSync(RESULTS, "utf8")) as {
    subscribers: number;
    connections: number;
    scenarios: Scenario[];
  };
  return [
    `The Effect of the Day to ${results.subscribers} confirmed subscribers (\`npm run bench:send\`), ${results.connections} pooled SMTP ` +
      "connections to a loopback SMTP sink that counts every recipient, no rate limit, beside a bare nodemailer pool sending the same mails (the ceiling). Target: at least half the ceiling's rate, no duplicate, none missing.",
    "",
    markdownTable(HEADER, rows(results.scenarios)),
  ].join("\n");
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
