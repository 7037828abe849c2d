/**
 * `npm run bench:send-effect-cpu`: what a mail costs `send-effect` in CPU under Deno, the way
 * Supabase runs it (the tests' Deno host behind the gateway stand-in, which charges each request
 * the worker's CPU and stops it past 2 s), on a real PostgreSQL server, for SMTP (a loopback
 * sink), Resend (its stand-in, batches of 100) and Amazon SES (its stand-in, one signed request a
 * mail). Each call gets a budget of SEND_EFFECT_CPU_MS;
 * the table says how many mails a call sent, the CPU the gateway charged it, and CPU per mail, so
 * the owner can tell how many mails a minute one call per minute carries on Supabase's free plan.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { SENDER_IDENTITY_PATH, mailEditionPath } from "../supabase/functions/_shared/contract/published.ts";
import { readNumberVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { contentIdentity, fixtureEdition, seedConfirmed } from "../test/support/effect-fixtures.ts";
import { postgresAvailable, startPostgres } from "../test/support/postgres-server.ts";
import { startResendStandIn } from "../test/support/resend-stand-in.ts";
import { startSesStandIn } from "../test/support/ses-stand-in.ts";
import { createSmtpCapture } from "../test/support/smtp-capture.ts";
import { startTestStack } from "../test/support/test-stack.ts";
import { textTable } from "./table.ts";

const DATE = "2026-11-20";
const KEY = "k".repeat(48);
const SUBSCRIBERS = readNumberVariable(process.env, "BENCH_SUBSCRIBERS", "optional") ?? 3_000;
const CPU_MS = 1_000;

/** The published site as the functions read it: the day's mail.json and the sender's names. */
async function startSite(): Promise<{ url: string; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const files: Record<string, unknown> = {
    [mailEditionPath(DATE)]: fixtureEdition(DATE, url),
    [SENDER_IDENTITY_PATH]: contentIdentity(),
  };
  server.on("request", (request, response) => {
    const file = files[request.url ?? ""];
    response.writeHead(file ? 200 : 404, { "Content-Type": "application/json" });
    response.end(file ? JSON.stringify(file) : "{}");
  });
  return { url, server };
}

interface Row {
  transport: string;
  calls: number;
  sent: number;
  mailsPerCall: number;
  cpuPerCallMs: number;
  cpuPerMailMs: number;
  stopped: number;
}

async function measure(
  transport: string,
  env: Record<string, string>,
  postgresUrl: string,
  siteUrl: string,
  delivered: () => number,
): Promise<Row> {
  const stack = await startTestStack(
    "Deno behind Supabase's gateway",
    {
      ...env,
      SITE_URL: siteUrl,
      SEND_EFFECT_KEY: KEY,
      SEND_EFFECT_CPU_MS: String(CPU_MS),
      SEND_EFFECT_SECONDS: "140",
      MAIL_RATE_PER_SECOND: "0",
      EFFECT_BATCH_SIZE: "100",
      EFFECT_LEASE_SECONDS: "30",
    },
    postgresUrl,
  );
  try {
    await seedConfirmed(stack.server.db, SUBSCRIBERS);
    const cpu: number[] = [];
    const sent: number[] = [];
    for (let call = 0; call < 200; call++) {
      stack.gateway?.cpuByFunction.clear();
      const answer = await fetch(`${stack.url}/functions/v1/send-effect`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ date: DATE }),
      });
      const body = (await answer.json()) as { status?: string; thisCall?: { sent: number } };
      cpu.push(stack.gateway?.cpuByFunction.get("send-effect") ?? 0);
      sent.push(body.thisCall?.sent ?? 0);
      if (answer.status !== 200 || body.status !== "sending") break;
    }
    // The last call may send a remainder: the full calls say what one call carries.
    const full = sent.length > 1 ? sent.slice(0, -1) : sent;
    const fullCpu = cpu.slice(0, full.length);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    return {
      transport,
      calls: sent.length,
      sent: delivered(),
      mailsPerCall: Math.round(sum(full) / full.length),
      cpuPerCallMs: Math.round(sum(fullCpu) / fullCpu.length),
      cpuPerMailMs: Number((sum(fullCpu) / Math.max(1, sum(full))).toFixed(3)),
      stopped: stack.gateway?.stopped.length ?? 0,
    };
  } finally {
    await stack.close();
  }
}

async function main(): Promise<void> {
  if (!postgresAvailable()) throw new Error("bench:send-effect-cpu needs PostgreSQL (see docs/testing.md)");
  const postgres = await startPostgres();
  const site = await startSite();
  const rows: Row[] = [];
  try {
    const smtp = await createSmtpCapture();
    try {
      rows.push(
        await measure("SMTP", { SMTP_URL: smtp.url }, postgres.url, site.url, () => smtp.mails.length),
      );
    } finally {
      await smtp.stop();
    }
    const resend = await startResendStandIn();
    try {
      rows.push(
        await measure(
          "Resend",
          { RESEND_API_KEY: resend.apiKey, RESEND_API_URL: resend.url, RESEND_REQUESTS_PER_SECOND: "0" },
          postgres.url,
          site.url,
          () => resend.mails.length,
        ),
      );
    } finally {
      await resend.close();
    }
    const ses = await startSesStandIn();
    try {
      rows.push(await measure("SES", ses.env, postgres.url, site.url, () => ses.mails.length));
    } finally {
      await ses.close();
    }
  } finally {
    site.server.close();
    postgres.stop();
  }
  console.log(
    `send-effect under Deno behind the gateway stand-in, ${SUBSCRIBERS} subscribers, SEND_EFFECT_CPU_MS=${CPU_MS}, ${os.cpus()[0]?.model ?? "unknown CPU"}:\n`,
  );
  console.log(
    textTable(
      [
        "transport",
        "calls",
        "delivered",
        "mails a call",
        "CPU a call (ms)",
        "CPU a mail (ms)",
        "workers stopped",
      ],
      rows.map((row) => [
        row.transport,
        String(row.calls),
        String(row.sent),
        String(row.mailsPerCall),
        String(row.cpuPerCallMs),
        String(row.cpuPerMailMs),
        String(row.stopped),
      ]),
    ),
  );
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
