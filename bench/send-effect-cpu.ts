/**
 * `npm run bench:send-effect-cpu` (and a part of `npm run bench`): `send-effect` on the runtime
 * twin, the way Supabase runs it. The tests' Deno host runs on Deno 2.1.4 inside
 * test/support/deno/edge-runtime-twin.ts, whose `process.cpuUsage()` answers zeros as the hosted
 * runtime's does, behind the gateway stand-in, which counts the worker's JavaScript thread across
 * its requests, retires it past 1 s and stops it past 2 s, as the runtime does. On a real
 * PostgreSQL server, for every row of mail/transports.ts through its stand-in
 * (test/support/transport-stand-ins.ts), with an edition the size of a real one.
 *
 * Two parts, per transport:
 * - the day: 3,000 subscribers (BENCH_SUBSCRIBERS), `send-effect` called until the edition is
 *   done: every reader once, no worker stopped, no call past 1.5 s of CPU as the gateway counts it;
 * - the estimate: with the gateway's limits lifted, one call's CPU as the worker estimated it
 *   (cpu-clock.ts, from its mails at the transport's cost) against the CPU the gateway counted.
 *   The estimate must not be lower, or a call could run into the platform's limit; the mails' cost
 *   in calibration units is printed, for the transport table (mail/transports.ts).
 *
 * It writes bench/send-effect-cpu-results.json, which `npm run bench` turns into verdicts and a
 * table in bench/RESULTS.md. About five minutes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readNumberVariable, readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import {
  exampleValue,
  TRANSPORTS,
  type TransportVariable,
} from "../supabase/functions/_shared/mail/transports.ts";
import { readerAddress, seedConfirmed } from "../test/support/effect-fixtures.ts";
import { postgresAvailable, startPostgres } from "../test/support/postgres-server.ts";
import { servePublishedSite, sendingDay } from "../test/support/published-site.ts";
import { SUPABASE_LIMITS } from "../test/support/supabase-gateway.ts";
import { startGatewayTestStack, type TestStack } from "../test/support/test-stack.ts";
import { TRANSPORT_STAND_INS } from "../test/support/transport-stand-ins.ts";
import { markdownTable, textTable } from "./table.ts";

const DATE = "2026-11-20";
const KEY = "k".repeat(48);
const SUBSCRIBERS = readVariable(process.env, "BENCH_SUBSCRIBERS")
  ? readNumberVariable(process.env, "BENCH_SUBSCRIBERS")
  : 3_000;
/** Mails one estimate call may send at most: enough for a steady figure, within the budget. */
const ESTIMATE_READERS = 600;
/** A built Effect's mail: about 5 KiB of HTML and half a KiB of text. */
const EDITION_KIB = 5.5;
const RESULTS = path.join(__dirname, "send-effect-cpu-results.json");

/** Issue 39's targets: every reader once, no worker stopped, no call past 1.5 s of CPU. */
export const SEND_EFFECT_CPU_TARGETS = { cpuMs: 1_500 };

interface CallAnswer {
  status?: string;
  thisCall?: { sent: number; cpuMs?: number; workerCpuMs?: number; stoppedBy?: string };
  clock?: { kind: string; unitMs?: number };
}

const callSendEffect = async (stack: TestStack) => {
  const answer = await fetch(`${stack.url}/functions/v1/send-effect`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ date: DATE }),
  });
  return { status: answer.status, body: (await answer.json()) as CallAnswer };
};

interface Transport {
  name: string;
  env: Record<string, string>;
  /** The mails the stand-in received for the first `readers` subscribers (`seedConfirmed`'s). */
  delivered(readers: number): number;
  stop(): Promise<void>;
}

export interface DayResult {
  transport: string;
  calls: number;
  delivered: number;
  /** The most CPU the gateway charged one call (the worker's CPU during it), and a worker in its life. */
  maxCallCpuMs: number;
  maxWorkerCpuMs: number;
  mailsPerCall: number;
  stopped: string[];
  retired: number;
  /** The clock the calls counted with ("estimate" on the twin). */
  clocks: string[];
}

export interface EstimateResult {
  transport: string;
  mails: number;
  /** CPU of the call as the worker estimated it and as the gateway counted it, in ms. */
  estimatedMs: number;
  countedMs: number;
  unitMs: number;
  /** What a mail cost, in calibration units (counted CPU / mails / unit). */
  unitsPerMail: number;
}

export interface SendEffectCpuResults {
  date: string;
  cpuModel: string;
  cpus: number;
  loadAverage: number;
  subscribers: number;
  editionKib: number;
  days: DayResult[];
  estimates: EstimateResult[];
}

const sendEffectEnv = (siteUrl: string, transport: Record<string, string>) => ({
  ...transport,
  SITE_URL: siteUrl,
  SEND_EFFECT_KEY: KEY,
  SEND_EFFECT_SECONDS: "140",
  MAIL_RATE_PER_SECOND: "0",
  // No API account's pace either: the bench measures CPU, not a rate limit.
  RESEND_REQUESTS_PER_SECOND: "0",
  EFFECT_BATCH_SIZE: "100",
  EFFECT_LEASE_SECONDS: "30",
});

/** The day: `send-effect` called until the edition is done, under the platform's limits. */
async function day(transport: Transport, postgresUrl: string, siteUrl: string): Promise<DayResult> {
  const stack = await startGatewayTestStack(sendEffectEnv(siteUrl, transport.env), postgresUrl);
  try {
    await seedConfirmed(stack.server.db, SUBSCRIBERS);
    const sent: number[] = [];
    const clocks = new Set<string>();
    for (let call = 0; call < 200; call++) {
      const { status, body } = await callSendEffect(stack);
      sent.push(body.thisCall?.sent ?? 0);
      if (body.clock) clocks.add(body.clock.kind);
      if (status !== 200 || body.status !== "sending") break;
      // A worker whose CPU is spent sends nothing until the platform retires it; the schedule
      // would call again seconds later, not at once.
      if (!body.thisCall?.sent) await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    // The last call may send a remainder: the full calls say what one call carries.
    const full = sent.length > 1 ? sent.slice(0, -1) : sent;
    const gateway = stack.gateway;
    return {
      transport: transport.name,
      calls: sent.length,
      delivered: transport.delivered(SUBSCRIBERS),
      maxCallCpuMs: Math.round(gateway?.cpuByFunction.get("send-effect") ?? 0),
      maxWorkerCpuMs: Math.round(gateway?.workerCpuByFunction.get("send-effect") ?? 0),
      mailsPerCall: Math.round(full.reduce((total, value) => total + value, 0) / full.length),
      stopped: (gateway?.stopped ?? []).map((stop) => stop.reason),
      retired: gateway?.retired.length ?? 0,
      clocks: [...clocks],
    };
  } finally {
    await stack.close();
  }
}

/** One call with the gateway's limits lifted: its CPU as the worker estimated it and as counted. */
async function estimate(transport: Transport, postgresUrl: string, siteUrl: string): Promise<EstimateResult> {
  const lifted = { cpuSoftMs: 600_000, cpuHardMs: 600_000, wallMs: 600_000 };
  const stack = await startGatewayTestStack(sendEffectEnv(siteUrl, transport.env), postgresUrl, {
    limits: lifted,
  });
  try {
    await seedConfirmed(stack.server.db, ESTIMATE_READERS);
    // A call the worker refuses (no key) boots it; what it counted until then is the boot's.
    await fetch(`${stack.url}/functions/v1/send-effect`, { method: "POST" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = stack.gateway?.workerCpuByFunction.get("send-effect") ?? 0;
    const { body } = await callSendEffect(stack);
    // Work the call handed to waitUntil (the mail queue) ends soon after; the gateway polls.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const countedMs = (stack.gateway?.workerCpuByFunction.get("send-effect") ?? 0) - before;
    const mails = body.thisCall?.sent ?? 0;
    const unitMs = body.clock?.unitMs ?? Number.NaN;
    return {
      transport: transport.name,
      mails,
      estimatedMs: Math.round(body.thisCall?.cpuMs ?? 0),
      countedMs: Math.round(countedMs),
      unitMs: Number(unitMs.toFixed(4)),
      unitsPerMail: Number((countedMs / Math.max(1, mails) / unitMs).toFixed(2)),
    };
  } finally {
    await stack.close();
  }
}

/**
 * Every row of mail/transports.ts, through its stand-in (transport-stand-ins.ts has one for each
 * row, or does not compile), named as the doctor names it (without the server).
 */
function transports(): Array<() => Promise<Transport>> {
  return TRANSPORTS.map((row) => {
    const name = row.dns(exampleValue(row))?.short.replace(/ \(.*\)$/, "") ?? row.variable;
    const start = TRANSPORT_STAND_INS[row.variable as TransportVariable];
    return async () => {
      const standIn = await start();
      return {
        name,
        env: standIn.env,
        delivered: (readers) =>
          Array.from({ length: readers }, (_, index) => standIn.received(readerAddress(index + 1))).reduce(
            (total, count) => total + count,
            0,
          ),
        stop: () => standIn.close(),
      };
    };
  });
}

/** The verdicts `npm run bench` prints and records. */
export function sendEffectCpuVerdicts(results: SendEffectCpuResults) {
  return [
    ...results.days.map((row) => ({
      target: `send-effect over ${row.transport} on the runtime twin: all ${results.subscribers} sent, no worker stopped, no call past ${SEND_EFFECT_CPU_TARGETS.cpuMs} ms of CPU`,
      met:
        row.delivered === results.subscribers &&
        row.stopped.length === 0 &&
        row.maxCallCpuMs <= SEND_EFFECT_CPU_TARGETS.cpuMs,
      detail: `${row.delivered} sent in ${row.calls} calls, ${row.stopped.length} stopped, at most ${row.maxCallCpuMs} ms a call (${row.maxWorkerCpuMs} ms a worker), clock: ${row.clocks.join(", ")}`,
    })),
    ...results.estimates.map((row) => ({
      target: `The worker's CPU estimate over ${row.transport} is not below the CPU the gateway counts`,
      met: row.estimatedMs >= row.countedMs,
      detail: `${row.estimatedMs} ms estimated, ${row.countedMs} ms counted for ${row.mails} mails (${row.unitsPerMail} units a mail, a unit ${row.unitMs} ms)`,
    })),
  ];
}

/** The section `npm run bench` writes into bench/RESULTS.md. */
export function sendEffectCpuSummary(): string {
  const results = JSON.parse(readFileSync(RESULTS, "utf8")) as SendEffectCpuResults;
  return [
    `send-effect on the runtime twin (\`npm run bench:send-effect-cpu\`, ${results.date.slice(0, 16).replace("T", " ")} UTC, ` +
      `${results.cpus} CPUs, ${results.cpuModel}, load ${results.loadAverage}): Deno 2.1.4 without a CPU clock, behind ` +
      `the gateway stand-in (the worker's thread CPU across its requests; retired past ${SUPABASE_LIMITS.cpuSoftMs} ms, ` +
      `stopped past ${SUPABASE_LIMITS.cpuHardMs} ms), ${results.subscribers} subscribers, an edition of ${results.editionKib} KiB.`,
    "",
    markdownTable(
      [
        "transport",
        "calls",
        "sent",
        "mails a call",
        "most CPU a call",
        "most CPU a worker",
        "retired",
        "stopped",
      ],
      results.days.map((row) => [
        row.transport,
        String(row.calls),
        String(row.delivered),
        String(row.mailsPerCall),
        `${row.maxCallCpuMs} ms`,
        `${row.maxWorkerCpuMs} ms`,
        String(row.retired),
        row.stopped.join(", ") || "none",
      ]),
    ),
    "",
    "The worker's estimate against the gateway's count, one call each with the limits lifted:",
    "",
    markdownTable(
      ["transport", "mails", "estimated", "counted", "estimate / counted", "units a mail"],
      results.estimates.map((row) => [
        row.transport,
        String(row.mails),
        `${row.estimatedMs} ms`,
        `${row.countedMs} ms`,
        `${(row.estimatedMs / Math.max(1, row.countedMs)).toFixed(2)}x`,
        String(row.unitsPerMail),
      ]),
    ),
  ].join("\n");
}

async function main(): Promise<void> {
  if (!postgresAvailable()) throw new Error("bench:send-effect-cpu needs PostgreSQL (see docs/testing.md)");
  const postgres = await startPostgres();
  const site = await servePublishedSite(sendingDay(DATE, EDITION_KIB));
  const results: SendEffectCpuResults = {
    date: new Date().toISOString(),
    cpuModel: os.cpus()[0]?.model ?? "unknown CPU",
    cpus: os.cpus().length,
    loadAverage: Number(os.loadavg()[0].toFixed(2)),
    subscribers: SUBSCRIBERS,
    editionKib: EDITION_KIB,
    days: [],
    estimates: [],
  };
  try {
    for (const make of transports()) {
      const transport = await make();
      try {
        results.estimates.push(await estimate(transport, postgres.url, site.url));
        console.log(`${transport.name}: estimate measured`);
      } finally {
        await transport.stop();
      }
      const fresh = await make();
      try {
        results.days.push(await day(fresh, postgres.url, site.url));
        console.log(`${fresh.name}: day sent`);
      } finally {
        await fresh.stop();
      }
    }
  } finally {
    await site.close();
    postgres.stop();
  }
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n${sendEffectCpuSummary()}\n`);
  for (const verdict of sendEffectCpuVerdicts(results))
    console.log(`  ${verdict.met ? "met   " : "MISSED"}  ${verdict.target}: ${verdict.detail}`);
  console.log(
    textTable(
      ["transport", "units a mail (counted)"],
      results.estimates.map((row) => [row.transport, String(row.unitsPerMail)]),
    ),
  );
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
