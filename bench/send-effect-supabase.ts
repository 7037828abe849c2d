/**
 * `npm run bench:send-effect-supabase` (and a part of `npm run bench`): the day's Effect to
 * 100,000 subscribers (BENCH_SUBSCRIBERS) as Supabase would send it: `send-effect` called every
 * 10 seconds as the schedule calls it (supabase/sql/schedule-send-effect.sql), whether the last
 * call has ended or not, served by the tests' Deno host in the runtime twin (Deno 2.1.4, no CPU
 * clock) behind the gateway stand-in (the worker's CPU across its calls: retired past 1 s, stopped
 * past 2 s; 256 MB), on PostgreSQL, through the Resend stand-in that keeps Resend's rules
 * (batches of 100, idempotency keys, 429 past 2 requests a second), with the worker killed 5 s
 * into the second call. Each call sends for 11 s, as the docs advise over Resend, so the next call
 * begins just before it ends and the rate has no gap; the two share the account's pace through the
 * database. It writes bench/supabase-send-results.json, which
 * `npm run bench` turns into verdicts and a table in bench/RESULTS.md. About ten minutes.
 * (SMTP and SES on the same rules: `npm run bench:send-effect-cpu`.)
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dayIn } from "../supabase/functions/_shared/contract/calendar-day.ts";
import { readNumberVariable, readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { contentIdentity, readerAddress, seedConfirmed } from "../test/support/effect-fixtures.ts";
import { postgresAvailable, startPostgres } from "../test/support/postgres-server.ts";
import { servePublishedSite, sendingDay } from "../test/support/published-site.ts";
import { startResendStandIn } from "../test/support/resend-stand-in.ts";
import { startTestStack, type TestStack } from "../test/support/test-stack.ts";
import { markdownTable, textTable } from "./table.ts";

/** Today in the brand's time zone: the schedule sends the day's Effect once SEND_AT has come. */
const DATE = dayIn(contentIdentity().timeZone, new Date());
const KEY = "k".repeat(48);
const SUBSCRIBERS = readVariable(process.env, "BENCH_SUBSCRIBERS")
  ? readNumberVariable(process.env, "BENCH_SUBSCRIBERS")
  : 100_000;
/** Resend's default: 2 requests a second, 100 mails a request. */
const REQUESTS_PER_SECOND = 2;
/** The schedule's interval (supabase/sql/schedule-send-effect.sql). */
const CALL_EVERY_MS = 10_000;
/** SEND_EFFECT_SECONDS over Resend (docs/deploying.md): each call overlaps the next by a second. */
const SECONDS_PER_CALL = 11;
const KILL_AFTER_MS = 5_000;

/** The targets of issue 27 (docs/testing.md): the day within 1.2x of the ideal, no call past 1.5 s of CPU. */
export const SUPABASE_SEND_TARGETS = { ratio: 1.2, cpuMs: 1_500 };
const RESULTS = path.join(__dirname, "supabase-send-results.json");

interface Call {
  call: number;
  /** When it was made, in seconds from the first. */
  at: number;
  status: number;
  state: string;
  sent: number;
  /** The CPU the call counted itself (the worker's, since it began). */
  cpuMs: number;
  seconds: number;
}

export interface SupabaseSendResults {
  date: string;
  cpuModel: string;
  cpus: number;
  subscribers: number;
  secondsPerCall: number;
  resend: {
    calls: Call[];
    deliveredOnce: number;
    duplicates: number;
    missing: number;
    unknown: number;
    lastMailSeconds: number;
    idealSeconds: number;
    ratio: number;
    maxChargedCpuMs: number;
    /** The most CPU a worker reached in its life (the platform stops it at 2,000 ms). */
    maxWorkerCpuMs: number;
    retired: number;
    refused429: number;
    workersStopped: string[];
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One `send-effect` call as pg_cron makes it, with what it answered. */
async function callSendEffect(stack: TestStack, call: number, firstAt: number): Promise<Call> {
  const startedAt = Date.now();
  const answer = await fetch(`${stack.url}/functions/v1/send-effect`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: "{}",
  }).catch((error: unknown) => new Response(JSON.stringify({ status: String(error) }), { status: 599 }));
  const text = await answer.text();
  let body: { status?: string; code?: string; thisCall?: { sent?: number; cpuMs?: number } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A gateway's error page: its status says enough.
  }
  return {
    call,
    at: Math.round((startedAt - firstAt) / 1000),
    status: answer.status,
    state: body.status ?? body.code ?? text.slice(0, 40),
    sent: body.thisCall?.sent ?? 0,
    cpuMs: body.thisCall?.cpuMs ?? 0,
    seconds: Math.round((Date.now() - startedAt) / 1000),
  };
}

async function resendDay(postgresUrl: string, siteUrl: string): Promise<SupabaseSendResults["resend"]> {
  const resend = await startResendStandIn({ requestsPerSecond: REQUESTS_PER_SECOND });
  const stack = await startTestStack(
    "Deno behind Supabase's gateway",
    {
      SITE_URL: siteUrl,
      SEND_EFFECT_KEY: KEY,
      // Due since midnight: each call sends, as the schedule's calls do after SEND_AT.
      SEND_AT: "00:00",
      RESEND_API_KEY: resend.apiKey,
      RESEND_API_URL: resend.url,
      RESEND_REQUESTS_PER_SECOND: String(REQUESTS_PER_SECOND),
      EFFECT_BATCH_SIZE: "100",
      EFFECT_LEASE_SECONDS: "30",
      SEND_EFFECT_SECONDS: String(SECONDS_PER_CALL),
    },
    postgresUrl,
  );
  try {
    await seedConfirmed(stack.server.db, SUBSCRIBERS);
    const distinct = () => new Set(resend.mails.flatMap((mail) => mail.to)).size;
    const started = Date.now();
    const calls: Array<Promise<Call>> = [];
    let lastMailAt = started;
    let seen = 0;
    const watch = setInterval(() => {
      const now = distinct();
      if (now > seen) [seen, lastMailAt] = [now, Date.now()];
    }, 250);
    for (let call = 1; distinct() < SUBSCRIBERS && call <= Math.ceil(SUBSCRIBERS / 1_000) + 20; call++) {
      await sleep(Math.max(0, started + (call - 1) * CALL_EVERY_MS - Date.now()));
      if (distinct() >= SUBSCRIBERS) break;
      if (call === 2) setTimeout(() => void stack.gateway?.kill("send-effect"), KILL_AFTER_MS);
      const made = callSendEffect(stack, call, started);
      void made.then((done) =>
        console.log(
          `call ${done.call} (at ${done.at} s): ${done.status} ${done.state}, ${done.sent} sent in ${done.seconds} s, ${done.cpuMs} ms CPU; ${distinct()} of ${SUBSCRIBERS} delivered`,
        ),
      );
      calls.push(made);
    }
    const made = await Promise.all(calls);
    clearInterval(watch);
    const counts = new Map<string, number>();
    for (const mail of resend.mails) for (const to of mail.to) counts.set(to, (counts.get(to) ?? 0) + 1);
    let missing = 0;
    for (let i = 1; i <= SUBSCRIBERS; i++) if (!counts.has(readerAddress(i))) missing++;
    const duplicates = [...counts.values()].filter((count) => count > 1).length;
    const [row] = await stack.server.db.query<{ unknown: number }>(
      `select count(*) filter (where status in ('unknown', 'sending'))::int as unknown
       from effect_deliveries where edition_date = $1::date`,
      [DATE],
    );
    const lastMailSeconds = (lastMailAt - started) / 1000;
    const idealSeconds = SUBSCRIBERS / (REQUESTS_PER_SECOND * 100);
    return {
      calls: made,
      deliveredOnce: counts.size - duplicates,
      duplicates,
      missing,
      unknown: row.unknown,
      lastMailSeconds: Math.round(lastMailSeconds),
      idealSeconds,
      ratio: Number((lastMailSeconds / idealSeconds).toFixed(2)),
      maxChargedCpuMs: Math.round(stack.gateway?.cpuByFunction.get("send-effect") ?? 0),
      maxWorkerCpuMs: Math.round(stack.gateway?.workerCpuByFunction.get("send-effect") ?? 0),
      retired: stack.gateway?.retired.length ?? 0,
      refused429: resend.requests.filter((request) => request.status === 429).length,
      workersStopped: (stack.gateway?.stopped ?? []).map((stop) => stop.reason),
    };
  } finally {
    await stack.close();
    await resend.close();
  }
}

/** The verdicts `npm run bench` prints and records. */
export function supabaseSendVerdicts(results: SupabaseSendResults) {
  const day = results.resend;
  return [
    {
      target: `The Effect to ${results.subscribers} through send-effect on Supabase's rules: every subscriber once, none unknown`,
      met: day.deliveredOnce === results.subscribers && day.duplicates === 0 && day.unknown === 0,
      detail: `${day.deliveredOnce} once, ${day.duplicates} twice, ${day.missing} missing, ${day.unknown} unknown`,
    },
    {
      target: `Its last mail within ${SUPABASE_SEND_TARGETS.ratio}x of Resend's rate limit's ideal time`,
      met: day.ratio <= SUPABASE_SEND_TARGETS.ratio,
      detail: `${day.lastMailSeconds} s against ${day.idealSeconds} s (${day.ratio}x), ${day.refused429} answers of 429`,
    },
    {
      target: `No send-effect call charged past ${SUPABASE_SEND_TARGETS.cpuMs} ms of CPU, no worker stopped`,
      met:
        day.maxChargedCpuMs <= SUPABASE_SEND_TARGETS.cpuMs &&
        day.workersStopped.every((reason) => reason === "killed"),
      detail: `at most ${day.maxChargedCpuMs} ms a call, ${day.maxWorkerCpuMs} ms a worker; stopped: ${day.workersStopped.join(", ") || "none"} (the bench kills one)`,
    },
  ];
}

/** The section `npm run bench` writes into bench/RESULTS.md. */
export function supabaseSendSummary(): string {
  const results = JSON.parse(readFileSync(RESULTS, "utf8")) as SupabaseSendResults;
  const day = results.resend;
  return [
    `The Effect to ${results.subscribers} subscribers as Supabase sends it (\`npm run bench:send-effect-supabase\`, ` +
      `${results.date.slice(0, 16).replace("T", " ")} UTC, ${results.cpus} CPUs, ${results.cpuModel}): send-effect called ` +
      `every ${CALL_EVERY_MS / 1000} s, each call sending for ${results.secondsPerCall} s, the runtime twin (Deno 2.1.4, no CPU ` +
      `clock) behind the gateway stand-in, PostgreSQL, the Resend stand-in at ${REQUESTS_PER_SECOND} requests a second, ` +
      `the worker killed ${KILL_AFTER_MS / 1000} s into the second call.`,
    "",
    markdownTable(
      [
        "once",
        "twice",
        "missing",
        "unknown",
        "last mail",
        "ideal",
        "ratio",
        "most CPU a call",
        "most CPU a worker",
        "429s",
        "workers stopped",
      ],
      [
        [
          String(day.deliveredOnce),
          String(day.duplicates),
          String(day.missing),
          String(day.unknown),
          `${day.lastMailSeconds} s`,
          `${day.idealSeconds} s`,
          `${day.ratio}x`,
          `${day.maxChargedCpuMs} ms`,
          `${day.maxWorkerCpuMs} ms`,
          String(day.refused429),
          day.workersStopped.join(", ") || "none",
        ],
      ],
    ),
  ].join("\n");
}

async function main(): Promise<void> {
  if (!postgresAvailable()) throw new Error("this bench needs PostgreSQL (see docs/testing.md)");
  const postgres = await startPostgres();
  const site = await servePublishedSite(sendingDay(DATE));
  try {
    const resend = await resendDay(postgres.url, site.url);
    const results: SupabaseSendResults = {
      date: new Date().toISOString(),
      cpuModel: os.cpus()[0]?.model ?? "unknown CPU",
      cpus: os.cpus().length,
      subscribers: SUBSCRIBERS,
      secondsPerCall: SECONDS_PER_CALL,
      resend,
    };
    writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\n${supabaseSendSummary()}\n`);
    console.log(
      textTable(
        ["call", "at (s)", "status", "state", "sent", "CPU (ms)", "seconds"],
        resend.calls.map((call) => [
          String(call.call),
          String(call.at),
          String(call.status),
          call.state,
          String(call.sent),
          String(call.cpuMs),
          String(call.seconds),
        ]),
      ),
    );
    for (const verdict of supabaseSendVerdicts(results))
      console.log(`  ${verdict.met ? "met   " : "MISSED"}  ${verdict.target}: ${verdict.detail}`);
  } finally {
    await site.close();
    postgres.stop();
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
