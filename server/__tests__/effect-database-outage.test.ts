/**
 * PostgreSQL stopped in the middle of sending an Effect to 100 subscribers, then started again:
 * the run ends with the error, nobody gets a mail twice, nothing is lost (every subscriber is
 * mailed or reported `unknown`), the next run sends the rest, and `--retry-unknown` the batch in
 * doubt.
 */
import type { ParsedMail } from "mailparser";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../../test/support/eventually.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import { createDeliveryStore } from "../../supabase/functions/_shared/effect-sending/delivery-store.ts";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { createTestDatabase, type TestDatabase } from "../../test/support/databases.ts";
import { recipients } from "../../test/support/outbox.ts";
import { postgresAvailable, type PostgresServer, startPostgres } from "../../test/support/postgres-server.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { effectContext, runEffectCommand } from "../effect-commands.ts";
import { migrate } from "../migrations.ts";
import {
  fixtureEdition,
  publishEdition,
  readerAddress,
  seedConfirmed,
  contentIdentity,
} from "../../test/support/effect-fixtures.ts";

const SITE = "https://www.thepurposeeffect.example";
const DATE = "2026-11-23";
const SUBSCRIBERS = 100;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const received = (mails: ParsedMail[]) => mails.flatMap(recipients);
const duplicates = (addresses: string[]) =>
  addresses.filter((address, i) => addresses.indexOf(address) !== i);

(postgresAvailable() ? describe : describe.skip)(
  "PostgreSQL stopped in the middle of an Effect's send",
  () => {
    let server: PostgresServer;
    let database: TestDatabase;
    let db: SqlExecutor;
    let smtp: SmtpCapture;
    let publicDir: string;

    beforeAll(async () => {
      server = await startPostgres();
      database = await createTestDatabase(server.url);
      db = createPostgresExecutor(database.url);
      await migrate(db);
      smtp = await createSmtpCapture();
      publicDir = mkdtempSync(path.join(tmpdir(), "effect-outage-"));
      publishEdition(publicDir, fixtureEdition(DATE, SITE));
    });
    afterAll(async () => {
      await smtp?.stop();
      await db?.close();
      await database?.drop().catch(() => undefined);
      server?.stop();
      rmSync(publicDir, { recursive: true, force: true });
    });

    const send = (retryUnknown = false) =>
      runEffectCommand(
        { action: "send", date: DATE, retryUnknown },
        effectContext(
          {
            SITE_URL: SITE,
            SMTP_URL: smtp.url,
            // Slow enough to stop the database in the middle; a short lease so the batch in doubt
            // is known to be abandoned soon after.
            MAIL_RATE_PER_SECOND: "50",
            EFFECT_BATCH_SIZE: "10",
            EFFECT_LEASE_SECONDS: "1",
          },
          { db, dataDir: publicDir, publicDir, log: quiet, identity: contentIdentity() },
        ),
      );

    it("loses nobody and mails nobody twice", async () => {
      await seedConfirmed(db, SUBSCRIBERS);
      const run = send();
      await smtp.waitForMails(20, 30_000);
      server.halt();
      const outcome = await run.then(
        (output) => `resolved: ${output}`,
        (error: unknown) => `rejected: ${String(error)}`,
      );
      expect(outcome).toMatch(/^rejected: /);
      const beforeRestart = received(smtp.mails);
      expect(beforeRestart.length).toBeLessThan(SUBSCRIBERS);

      server.resume();
      // The dead run's rows count as stale once their lease (1 s) has run out.
      await untilNoLiveLease(db);
      await send();
      const afterRun = received(smtp.mails);
      expect(duplicates(afterRun)).toEqual([]);
      const counts = (await createDeliveryStore(db).status(DATE))?.counts;
      // Everyone is mailed, or reported as in doubt: nothing is silently lost.
      expect((counts?.sent ?? 0) + (counts?.unknown ?? 0)).toBe(SUBSCRIBERS);
      expect(counts?.unknown ?? 0).toBeLessThanOrEqual(10);
      const missing = Array.from({ length: SUBSCRIBERS }, (_, i) => readerAddress(i + 1)).filter(
        (address) => !afterRun.includes(address),
      );
      expect(missing.length).toBeLessThanOrEqual(counts?.unknown ?? 0);

      await send(true);
      const all = received(smtp.mails);
      expect(new Set(all).size).toBe(SUBSCRIBERS);
      // Only a mail of the batch in doubt can have gone out twice, and only on request.
      expect(duplicates(all).length).toBeLessThanOrEqual(counts?.unknown ?? 0);
    });
  },
);

/** Waits until no delivery is held under a lease that has not run out yet (the database's clock). */
async function untilNoLiveLease(db: SqlExecutor): Promise<void> {
  await eventually(
    async () =>
      (
        await db.query<{ live: number }>(
          "select count(*)::int as live from effect_deliveries where status = 'sending' and lease_until > now()",
        )
      )[0].live,
    {
      what: "no delivery still leased (the count of live leases)",
      intervalMs: 50,
      until: (live) => live === 0,
    },
  );
}
