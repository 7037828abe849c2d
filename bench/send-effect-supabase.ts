/**
 * `npm run bench:send-effect-supabase`: the day's Effect to 100,000 subscribers (BENCH_SUBSCRIBERS)
 * as Supabase would send it: `send-effect` called once a minute as pg_cron calls it, served by the
 * tests' Deno host behind the gateway stand-in (2 s of CPU, 256 MB), on PostgreSQL, through the
 * Resend stand-in that keeps Resend's rules (batches of 100, idempotency keys, 429 past 2 requests a
 * second), with the worker killed in the middle of the second call. It reports whether every
 * subscriber got the Effect exactly once, how many are `unknown`, the time to the last mail beside
 * the rate limit's ideal, and the most CPU one call was charged. About ten minutes.
 */
import os from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SENDER_IDENTITY_PATH, mailEditionPath } from "../supabase/functions/_shared/contract/published.ts";
import { dayIn } from "../supabase/functions/_shared/contract/calendar-day.ts";
import { readNumberVariable, readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import {
  contentIdentity,
  fixtureEdition,
  readerAddress,
  seedConfirmed,
} from "../test/support/effect-fixtures.ts";
import { postgresAvailable, startPostgres } from "../test/support/postgres-server.ts";
import { startResendStandIn } from "../test/support/resend-stand-in.ts";
import { startTestStack } from "../test/support/test-stack.ts";
import { textTable } from "./table.ts";

/** Today in the brand's time zone: the schedule sends the day's Effect once SEND_AT has come. */
const DATE = dayIn(contentIdentity().timeZone, new Date());
const KEY = "k".repeat(48);
const SUBSCRIBERS = readVariable(process.env, "BENCH_SUBSCRIBERS")
  ? readNumberVariable(process.env, "BENCH_SUBSCRIBERS")
  : 100_000;
/** Resend's default: 2 requests a second, 100 mails a request. */
const REQUESTS_PER_SECOND = 2;
const CALL_EVERY_MS = 60_000;
const KILL_AFTER_MS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  if (!postgresAvailable()) throw new Error("this bench needs PostgreSQL (see docs/testing.md)");
  const postgres = await startPostgres();
  const resend = await startResendStandIn({ requestsPerSecond: REQUESTS_PER_SECOND });
  const site = createServer();
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const files: Record<string, unknown> = {
    [mailEditionPath(DATE)]: fixtureEdition(DATE, siteUrl),
    [SENDER_IDENTITY_PATH]: contentIdentity(),
  };
  site.on("request", (request, response) => {
    const file = files[request.url ?? ""];
    response.writeHead(file ? 200 : 404, { "Content-Type": "application/json" });
    response.end(file ? JSON.stringify(file) : "{}");
  });
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
      MAIL_RATE_PER_SECOND: "0",
      EFFECT_BATCH_SIZE: "100",
      EFFECT_LEASE_SECONDS: "30",
      SEND_EFFECT_SECONDS: "55",
    },
    postgres.url,
  );
  const calls: Array<{ status: number; body: string; cpuMs: number }> = [];
  try {
    await seedConfirmed(stack.server.db, SUBSCRIBERS);
    const distinct = () => new Set(resend.mails.flatMap((mail) => mail.to)).size;
    const started = Date.now();
    let lastMailAt = 0;
    let call = 0;
    while (distinct() < SUBSCRIBERS && call < Math.ceil(SUBSCRIBERS / 6_000) + 10) {
      const at = started + call * CALL_EVERY_MS;
      await sleep(Math.max(0, at - Date.now()));
      call++;
      stack.gateway?.cpuByFunction.clear();
      const killing = call === 2 ? sleep(KILL_AFTER_MS).then(() => stack.gateway?.kill("send-effect")) : null;
      const answer = await fetch(`${stack.url}/functions/v1/send-effect`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: "{}",
      }).catch((error: unknown) => new Response(String(error), { status: 599 }));
      await killing;
      calls.push({
        status: answer.status,
        body: (await answer.text()).slice(0, 120),
        cpuMs: stack.gateway?.cpuByFunction.get("send-effect") ?? 0,
      });
      if (distinct() > 0) lastMailAt = Date.now();
      console.log(
        `call ${call}: ${answer.status} ${calls.at(-1)?.body ?? ""}; ${distinct()} of ${SUBSCRIBERS} delivered`,
      );
    }
    // The last mail's moment, to the second: poll until the count stops growing.
    while (distinct() < SUBSCRIBERS && Date.now() - lastMailAt < 5_000) {
      const before = distinct();
      await sleep(250);
      if (distinct() > before) lastMailAt = Date.now();
    }
    const counts = new Map<string, number>();
    for (const mail of resend.mails) for (const to of mail.to) counts.set(to, (counts.get(to) ?? 0) + 1);
    let missing = 0;
    for (let i = 1; i <= SUBSCRIBERS; i++) if (!counts.has(readerAddress(i))) missing++;
    const duplicates = [...counts.values()].filter((count) => count > 1).length;
    const [row] = await stack.server.db.query<{ unknown: number; sending: number }>(
      `select count(*) filter (where status = 'unknown')::int as unknown,
              count(*) filter (where status = 'sending')::int as sending
       from effect_deliveries where edition_date = $1::date`,
      [DATE],
    );
    const elapsed = (lastMailAt - started) / 1000;
    const ideal = SUBSCRIBERS / (REQUESTS_PER_SECOND * 100);
    const refused = resend.requests.filter((request) => request.status === 429).length;
    console.log(
      `\nsend-effect to ${SUBSCRIBERS} subscribers, once a minute, Deno behind the gateway stand-in, Resend stand-in at ${REQUESTS_PER_SECOND} requests/s, the worker killed 20 s into call 2 (${os.cpus()[0]?.model ?? "unknown CPU"}):\n`,
    );
    console.log(
      textTable(
        [
          "calls",
          "delivered once",
          "duplicates",
          "missing",
          "unknown",
          "last mail (s)",
          "ideal (s)",
          "ratio",
          "max CPU a call (ms)",
          "429s",
          "workers stopped",
        ],
        [
          [
            String(calls.length),
            String(counts.size - duplicates),
            String(duplicates),
            String(missing),
            String(row.unknown + row.sending),
            elapsed.toFixed(0),
            ideal.toFixed(0),
            `${(elapsed / ideal).toFixed(2)}x`,
            String(Math.round(Math.max(...calls.map((entry) => entry.cpuMs)))),
            String(refused),
            (stack.gateway?.stopped ?? []).map((stop) => stop.reason).join(", ") || "none",
          ],
        ],
      ),
    );
  } finally {
    await stack.close();
    await resend.close();
    site.close();
    postgres.stop();
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
