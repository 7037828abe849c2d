/**
 * A send-effect call stops within its CPU budget (Supabase stops a worker at 2 s of CPU): between
 * two batches, every mail it sent recorded, nothing left in `sending` for a crash to turn
 * `unknown`; the next call goes on where it stopped. The CPU here is a counter the test moves as
 * mails go out (a dear mail costs 30 ms), on PGlite with a real SMTP server.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { createPgliteExecutor } from "../../../../../server/pglite-executor.ts";
import {
  contentIdentity,
  fixtureEdition,
  readerAddress,
  seedConfirmed,
} from "../../../../../test/support/effect-fixtures.ts";
import { recipients } from "../../../../../test/support/outbox.ts";
import { createSmtpCapture, type SmtpCapture } from "../../../../../test/support/smtp-capture.ts";
import { preparedDataDir } from "../../../../../test/support/test-stack.ts";
import { parseConfig } from "../../config.ts";
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { mailSettings } from "../../mail/list-headers.ts";
import type { Mailer } from "../../mail/mailer.ts";
import { createSmtpMailer } from "../../mail/smtp.ts";
import { createMailPace } from "../delivery-decisions.ts";
import { createDeliveryStore } from "../delivery-store.ts";
import { sendEdition } from "../send-run.ts";

const DATE = "2026-11-20";
const READERS = 100;
const MS_PER_MAIL = 30;

describe("a send within a CPU budget", () => {
  let dataDir: string;
  let db: SqlExecutor;
  let smtp: SmtpCapture;
  let cpuMs = 0;

  beforeAll(async () => {
    dataDir = await preparedDataDir();
    db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    smtp = await createSmtpCapture();
    await seedConfirmed(db, READERS);
    await createDeliveryStore(db).prepare(fixtureEdition(DATE), new Date());
  });
  afterAll(async () => {
    await smtp?.stop();
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("stops between batches before the budget, all it sent recorded, and the next call finishes the list", async () => {
    const store = createDeliveryStore(db);
    const smtpMailer = createSmtpMailer(smtp.url);
    const costly: Mailer = {
      description: smtpMailer.description,
      async send(message) {
        await smtpMailer.send(message);
        cpuMs += MS_PER_MAIL;
      },
    };
    const call = () =>
      sendEdition(DATE, {
        store,
        mailer: costly,
        settings: mailSettings(parseConfig({}), contentIdentity()),
        log: { info: () => undefined, warn: () => undefined, error: () => undefined },
        rate: createMailPace(0),
        owner: "send-effect:test",
        batchSize: 10,
        leaseSeconds: 30,
        policy: { baseSeconds: 1, maxSeconds: 1, pauseAfter: 20 },
        waitForRetries: false,
        // The handler's budget: 1,000 ms from the call's start (test/support's clock never
        // reaches the worker's ceiling here).
        cpu: { used: () => cpuMs, limitMs: cpuMs + 1_000 },
      });

    const first = await call();
    // Ten mails a batch at 30 ms: three batches (900 ms); a fourth might pass 1,000.
    expect(first).toMatchObject({ sent: 30, finished: false, cpuMs: 900, stoppedBy: "cpu" });
    const status = await store.status(DATE);
    expect(status?.counts).toMatchObject({ sent: 30, sending: 0, unknown: 0, queued: READERS - 30 });

    let calls = 1;
    for (let report = first; !report.finished; calls++) report = await call();
    expect(calls).toBe(4);
    const delivered = smtp.mails.flatMap(recipients).sort();
    expect(delivered).toEqual(Array.from({ length: READERS }, (_, i) => readerAddress(i + 1)).sort());
    await smtpMailer.close?.();
  });
});
