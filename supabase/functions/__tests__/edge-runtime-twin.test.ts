/**
 * The functions on the runtime twin, as Supabase runs them: Deno 2.1.4 (the version its Edge
 * Runtime embeds) with no CPU clock (`process.cpuUsage()` answers zeros), behind the gateway
 * stand-in that counts the worker's CPU across its calls, retires it past 1 s and stops it past
 * 2 s. `send-effect` counts its worker's CPU from the mail it sends, so the list is sent across
 * calls with no worker stopped and nothing in doubt; `effect status` says which clock counted; and
 * when the platform says `beforeunload`, a call in flight finishes its batch and claims no more.
 */
import { execFileSync } from "node:child_process";
import { createDeliveryStore } from "../_shared/effect-sending/delivery-store.ts";
import { statusText } from "../_shared/effect-sending/status-text.ts";
import { testPostgresUrl } from "../../../test/support/databases.ts";
import { denoExecutable, denoVersion } from "../../../test/support/deno/runtimes.ts";
import { readerAddress, seedConfirmed } from "../../../test/support/effect-fixtures.ts";
import type { LoopbackServer } from "../../../test/support/loopback-http.ts";
import { recipients } from "../../../test/support/outbox.ts";
import { servePublishedSite, sendingDay } from "../../../test/support/published-site.ts";
import { createSmtpCapture, type SmtpCapture } from "../../../test/support/smtp-capture.ts";
import { startGatewayTestStack, type TestStack } from "../../../test/support/test-stack.ts";

const DATE = "2026-11-20";
const KEY = "k".repeat(48);
const READERS = 600;
const postgresUrl = testPostgresUrl();

interface SendEffectAnswer {
  status: string;
  thisCall?: { sent: number; stoppedBy?: string };
  clock?: { kind: string };
}

const sendEffect = async (stack: TestStack): Promise<SendEffectAnswer> => {
  const answer = await fetch(`${stack.url}/functions/v1/send-effect`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ date: DATE }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as SendEffectAnswer;
};

it("runs on the Deno version Supabase's Edge Runtime embeds", () => {
  const printed = execFileSync(denoExecutable("edge"), ["--version"], { encoding: "utf8" });
  expect(printed).toContain(`deno ${denoVersion("edge")} `);
  expect(denoVersion("edge")).toBe("2.1.4");
});

(postgresUrl ? describe : describe.skip)("send-effect on the runtime twin behind Supabase's gateway", () => {
  let site: LoopbackServer;
  let smtp: SmtpCapture;

  beforeAll(async () => {
    site = await servePublishedSite(sendingDay(DATE));
    smtp = await createSmtpCapture();
  });
  afterAll(async () => {
    await site?.close();
    await smtp?.stop();
  });

  const env = () => ({
    SITE_URL: site.url,
    SMTP_URL: smtp.url,
    SEND_EFFECT_KEY: KEY,
    EFFECT_BATCH_SIZE: "50",
    MAIL_RATE_PER_SECOND: "0",
  });

  it("sends the list across calls with no worker stopped, each call within its CPU budget, and says which clock counted", async () => {
    smtp.mails.length = 0;
    const stack = await startGatewayTestStack(env(), postgresUrl);
    try {
      await seedConfirmed(stack.server.db, READERS);
      const answers: SendEffectAnswer[] = [];
      for (let call = 0; call < 60; call++) {
        const answer = await sendEffect(stack);
        answers.push(answer);
        if (answer.status !== "sending") break;
        // A worker whose CPU is spent sends nothing until the platform retires it.
        if (!answer.thisCall?.sent) await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      expect(answers.at(-1)?.status).toBe("done");
      // The list took more than one call: the calls stopped at their budget, not at the platform's limit.
      expect(answers.length).toBeGreaterThan(1);
      expect(answers.filter((answer) => answer.thisCall?.stoppedBy === "cpu").length).toBeGreaterThan(0);
      expect(new Set(answers.map((answer) => answer.clock?.kind))).toEqual(new Set(["estimate"]));
      expect(stack.gateway?.stopped).toEqual([]);
      expect(stack.gateway?.workerCpuByFunction.get("send-effect")).toBeLessThan(2_000);
      const delivered = smtp.mails.flatMap(recipients).sort();
      expect(delivered).toEqual(Array.from({ length: READERS }, (_, i) => readerAddress(i + 1)).sort());

      const status = await statusText(createDeliveryStore(stack.server.db), DATE);
      expect(status).toMatch(/^sent\s+600$/m);
      expect(status).toMatch(/^unknown\s+0$/m);
      expect(status).toMatch(
        /last send-effect call \(.+\): \d+ sent; the worker's CPU \d+ ms of its 1300 ms budget/,
      );
      expect(status).toContain(
        "counted by an estimate from the mails sent, as this runtime has no CPU clock",
      );
      expect(stack.logs.join("\n")).toContain("Not implemented: process.cpuUsage()");
    } finally {
      await stack.close();
    }
  }, 240_000);

  it("finishes the batch in hand and claims no more when the platform says beforeunload", async () => {
    smtp.mails.length = 0;
    // The runtime's --dispatch-beforeunload-cpu-ratio, low enough to come in the first call.
    const stack = await startGatewayTestStack(env(), postgresUrl, { beforeunloadCpuPct: 25 });
    try {
      await seedConfirmed(stack.server.db, READERS);
      const first = await sendEffect(stack);
      expect(first.status).toBe("sending");
      expect(first.thisCall?.stoppedBy).toBe("signal");
      expect(stack.logs.join("\n")).toMatch(/the worker is about to stop \(cpu\): no more work is claimed/);
      const store = createDeliveryStore(stack.server.db);
      const counts = (await store.status(DATE))?.counts;
      // Every mail it sent is recorded: nothing left in doubt for a crash to turn unknown.
      expect(counts).toMatchObject({ sending: 0, unknown: 0, sent: first.thisCall?.sent });
      expect(smtp.mails.flatMap(recipients)).toHaveLength(first.thisCall?.sent ?? -1);
    } finally {
      await stack.close();
    }
  }, 240_000);
});
