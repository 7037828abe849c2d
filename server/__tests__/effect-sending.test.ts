/**
 * The Effect of the Day sent to a real SMTP server on loopback, on PGlite and on PostgreSQL:
 * everyone once, two senders at once, an unsubscribe in the middle, a 5xx for one address, and an
 * SMTP outage in the middle of a send.
 */
import type { ParsedMail } from "mailparser";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../../test/support/eventually.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import { createDeliveryStore } from "../../supabase/functions/_shared/effect-sending/delivery-store.ts";
import type { Logger } from "../../supabase/functions/_shared/logger.ts";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { createAdminQueries } from "../../supabase/functions/_shared/subscriptions/admin-queries.ts";
import { createSubscriberStore } from "../../supabase/functions/_shared/subscriptions/subscriber-store.ts";
import { sha256Hex } from "../../supabase/functions/_shared/subscriptions/tokens.ts";
import {
  type EffectCommand,
  type EffectContext,
  effectContext,
  runEffectCommand,
} from "../effect-commands.ts";
import { migrate } from "../migrations.ts";
import { subscribersText } from "../subscriber-commands.ts";
import { createPgliteExecutor } from "../pglite-executor.ts";
import { createTestDatabase, type TestDatabase, testPostgresUrl } from "../../test/support/databases.ts";
import {
  fixtureEdition,
  publishEdition,
  readerAddress,
  readerUnsubscribeHash,
  seedConfirmed,
  contentIdentity,
} from "../../test/support/effect-fixtures.ts";
import { oneClickUrl, rawHeader, recipients } from "../../test/support/outbox.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { preparedDataDir } from "../../test/support/test-stack.ts";

const SITE = "https://www.thepurposeeffect.example";
const DATE = "2026-11-23";

interface Backend {
  name: "PGlite" | "PostgreSQL";
  /** A fresh, migrated database; `connect` opens another connection pool to it (a second sender). */
  open(): Promise<{ db: SqlExecutor; connect(): SqlExecutor | null; close(): Promise<void> }>;
}

const pglite: Backend = {
  name: "PGlite",
  async open() {
    const dir = await preparedDataDir();
    const db = await createPgliteExecutor(path.join(dir, "pglite"));
    return {
      db,
      connect: () => null,
      async close() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const serverUrl = testPostgresUrl();
const postgres: Backend = {
  name: "PostgreSQL",
  async open() {
    const database: TestDatabase = await createTestDatabase(serverUrl as string);
    const db = createPostgresExecutor(database.url);
    await migrate(db);
    const others: SqlExecutor[] = [];
    return {
      db,
      connect() {
        const other = createPostgresExecutor(database.url);
        others.push(other);
        return other;
      },
      async close() {
        for (const other of others) await other.close();
        await db.close();
        await database.drop();
      },
    };
  },
};

const backends = serverUrl ? [pglite, postgres] : [pglite];

/** Every mail's recipient, one entry per mail received. */
const received = (mails: ParsedMail[]) => mails.flatMap(recipients);
const duplicates = (addresses: string[]) =>
  addresses.filter((address, i) => addresses.indexOf(address) !== i);

describe.each(backends)("sending an Effect on $name", (backend) => {
  let opened: Awaited<ReturnType<Backend["open"]>>;
  let smtp: SmtpCapture;
  let publicDir: string;
  const logs: string[] = [];
  const log: Logger = {
    info: (message) => logs.push(message),
    warn: (message) => logs.push(`warning: ${message}`),
    error: (message) => logs.push(`error: ${message}`),
  };

  const context = (env: Record<string, string> = {}, db: SqlExecutor = opened.db): EffectContext => {
    const fullEnv = {
      SITE_URL: SITE,
      SMTP_URL: smtp.url,
      MAIL_RATE_PER_SECOND: "0",
      MAIL_RETRY_BASE_SECONDS: "0.05",
      MAIL_RETRY_MAX_SECONDS: "0.2",
      EFFECT_BATCH_SIZE: "20",
      ...env,
    };
    return effectContext(fullEnv, { db, dataDir: publicDir, publicDir, log, identity: contentIdentity() });
  };
  const send = (env?: Record<string, string>, db?: SqlExecutor, extra: Partial<EffectCommand> = {}) =>
    runEffectCommand(
      { action: "send", date: DATE, retryUnknown: false, ...extra } as EffectCommand,
      context(env, db),
    );
  const status = () => createDeliveryStore(opened.db).status(DATE);

  beforeEach(async () => {
    opened = await backend.open();
    smtp = await createSmtpCapture({
      rejectRecipient: (address) =>
        address === readerAddress(7)
          ? `550 5.1.1 <${address}>: Recipient address rejected: User unknown`
          : undefined,
    });
    publicDir = mkdtempSync(path.join(tmpdir(), "effect-public-"));
    publishEdition(publicDir, fixtureEdition(DATE, SITE));
    logs.length = 0;
  });
  afterEach(async () => {
    await smtp.stop();
    await opened.close();
    rmSync(publicDir, { recursive: true, force: true });
  });

  it("mails each of 300 confirmed subscribers once, even with two senders at once and a third after", async () => {
    await seedConfirmed(opened.db, 6);
    await seedConfirmed(opened.db, 294, 8);
    await opened.db.query(
      `insert into subscribers (email, status) values ('waiting@example.com', 'pending'), ('gone@example.com', 'unsubscribed')`,
    );
    const second = opened.connect() ?? opened.db;
    const [first, other] = await Promise.all([send(), send({}, second)]);
    expect(first).toMatch(/sent/);
    expect(other).toMatch(/sent/);
    await send();

    const addresses = received(smtp.mails);
    expect(addresses).toHaveLength(300);
    expect(duplicates(addresses)).toEqual([]);
    expect(addresses).not.toContain("waiting@example.com");
    expect((await status())?.counts).toMatchObject({ sent: 300, queued: 0, sending: 0, unknown: 0 });
  });

  it("gives each mail both parts, the list headers and its own unsubscribe link, which works", async () => {
    await seedConfirmed(opened.db, 2);
    await send();
    const [a, b] = await smtp.waitForMails(2);
    expect(a.subject).toBe(`Effect of the Day: Small & steady <${DATE}>`);
    expect(a.text).toContain(`Read it online: ${SITE}/effects/${DATE}/`);
    expect(a.html).toContain(`<a href="${SITE}/effects/${DATE}/">Read it online</a>`);
    expect(rawHeader(a, "List-Id")).toBe(
      "Effect of the Day <effect-of-the-day.www.thepurposeeffect.example>",
    );
    expect(rawHeader(a, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    const oneClick = oneClickUrl(a);
    expect(oneClick.href).toMatch(new RegExp(`^${SITE}/functions/v1/unsubscribe\\?token=[A-Za-z0-9_-]{43}$`));
    const token = oneClick.searchParams.get("token") as string;
    expect(a.text).toContain(`Unsubscribe: ${SITE}/?unsubscribe=${token}`);
    expect(a.html).toContain(`<a href="${SITE}/?unsubscribe=${token}">Unsubscribe</a>`);
    expect(oneClickUrl(b).searchParams.get("token")).not.toBe(token);

    // Only its hash is stored, and the existing unsubscribe path accepts it.
    const [{ count }] = await opened.db.query<{ count: number }>(
      `select count(*)::int as count from effect_unsubscribe_tokens where token_hash = $1`,
      [await sha256Hex(token)],
    );
    expect(count).toBe(1);
    const subscriptions = createSubscriberStore(opened.db);
    expect(await subscriptions.unsubscribe(await sha256Hex(token), new Date())).toBe("unsubscribed");
    expect(await createAdminQueries(opened.db).countByStatus()).toMatchObject({
      confirmed: 1,
      unsubscribed: 1,
    });
  });

  it("skips a subscriber who unsubscribes while the list is being sent", async () => {
    await seedConfirmed(opened.db, 6);
    await seedConfirmed(opened.db, 194, 8);
    const run = send({ MAIL_RATE_PER_SECOND: "150", EFFECT_BATCH_SIZE: "10" });
    await smtp.waitForMails(20, 30_000);
    // The last one in line, who has not had their turn yet.
    const [last] = await opened.db.query<{ recipient: string }>(
      `select recipient from effect_deliveries where status = 'queued' order by next_attempt_at desc, id desc limit 1`,
    );
    const index = Number(/^reader(\d+)@/.exec(last.recipient)?.[1]);
    const unsubscribed = await createSubscriberStore(opened.db).unsubscribe(
      await readerUnsubscribeHash(index),
      new Date(),
    );
    expect(unsubscribed).toBe("unsubscribed");
    await run;
    const addresses = received(smtp.mails);
    expect(addresses).not.toContain(last.recipient);
    expect(addresses).toHaveLength(199);
    expect((await status())?.counts).toMatchObject({ sent: 199, skipped: 1 });
  });

  it("fails only the address the server refuses with a 5xx, and sends no later Effect to it", async () => {
    await seedConfirmed(opened.db, 30);
    // A mail still waiting for the refused reader (its welcome, say) is never sent either.
    await opened.db.query(
      `insert into mail_jobs (subscriber_id, kind, recipient, next_attempt_at)
       select id, 'welcome', email, now() + interval '1 hour' from subscribers where email = $1`,
      [readerAddress(7)],
    );
    const output = await send();
    expect(output).toMatch(/29 sent, 1 failed/);
    expect(received(smtp.mails)).toHaveLength(29);
    expect(received(smtp.mails)).not.toContain(readerAddress(7));
    expect((await status())?.counts).toMatchObject({ sent: 29, failed: 1 });
    // Refused once, not retried: one warning, masked, naming no address.
    const refusals = logs.filter((line) => line.includes("refused for good"));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain("r•••@example.com");
    expect(logs.join("\n")).not.toContain(readerAddress(7));
    // The owner's export says when and why, as for a bounce or a refused confirmation mail.
    const csv = await subscribersText({ action: "export" }, opened.db, "the test database");
    const [header, ...rows] = csv.trim().split("\r\n");
    const columns = header.split(",");
    const refused = rows.find((row) => row.startsWith(`${readerAddress(7)},`))?.split(",") ?? [];
    const field = (name: string) => refused[columns.indexOf(name)];
    expect(field("suppressed_reason")).toMatch(/550 5\.1\.1 .*User unknown/);
    expect(Date.parse(field("suppressed_at"))).toBeGreaterThan(Date.now() - 60_000);
    const [waiting] = await opened.db.query<{ status: string; last_error: string }>(
      `select status, last_error from mail_jobs where recipient = $1`,
      [readerAddress(7)],
    );
    expect(waiting).toEqual({ status: "abandoned", last_error: expect.stringContaining("User unknown") });

    const next = "2026-11-24";
    publishEdition(publicDir, fixtureEdition(next, SITE));
    await runEffectCommand({ action: "send", date: next, retryUnknown: false }, context());
    expect((await createDeliveryStore(opened.db).status(next))?.counts).toMatchObject({
      sent: 29,
      failed: 0,
    });
  });

  it("pauses the edition when the SMTP server goes away, and completes it once it is back", async () => {
    await seedConfirmed(opened.db, 6);
    await seedConfirmed(opened.db, 94, 8);
    const env = { MAIL_RATE_PER_SECOND: "100", EFFECT_BATCH_SIZE: "10", EFFECT_PAUSE_AFTER_FAILURES: "5" };
    const run = send(env);
    await smtp.waitForMails(15, 30_000);
    await smtp.stop();
    const output = await run;
    expect(output).toMatch(/the edition is paused/);
    const paused = await status();
    expect(paused?.state).toBe("paused");
    expect(paused?.counts.queued).toBeGreaterThan(0);

    await smtp.start();
    const resumed = await send(env);
    expect(resumed).toMatch(/Resumed the paused edition/);
    const addresses = received(smtp.mails);
    expect(duplicates(addresses)).toEqual([]);
    expect(addresses).toHaveLength(100);
    expect((await status())?.counts).toMatchObject({ sent: 100, queued: 0 });
    expect((await status())?.state).toBe("sending");
  });

  (backend.name === "PostgreSQL" ? it : it.skip)(
    "keeps a slow live sender's rows from a second sender by renewing its lease",
    async () => {
      await smtp.stop();
      smtp = await createSmtpCapture({ acceptDelayMs: 2_500 });
      await seedConfirmed(opened.db, 6);
      const env = { EFFECT_LEASE_SECONDS: "1", EFFECT_BATCH_SIZE: "6", SMTP_MAX_CONNECTIONS: "5" };
      const slow = send(env);
      // Past the end of the first lease the slow sender took, while it still waits on the server.
      const firstLease = await leaseTaken(opened.db);
      await eventually(() => Date.now() > firstLease.getTime() + 200, {
        what: `the first lease (until ${firstLease.toISOString()}) to have run out`,
        intervalMs: 50,
      });
      const second = await send(env, opened.connect() ?? opened.db);
      expect(second).not.toMatch(/now unknown/);
      expect(second).toMatch(/This run: 0 sent/);
      await slow;
      expect(received(smtp.mails).sort()).toHaveLength(6);
      expect((await status())?.counts).toMatchObject({ sent: 6, unknown: 0 });
    },
  );

  it("queues nothing for an Effect that is not published", async () => {
    await seedConfirmed(opened.db, 3);
    await expect(
      runEffectCommand(
        { action: "send", date: "2026-11-20", retryUnknown: false },
        context({ SITE_URL: "http://127.0.0.1:9" }),
      ),
    ).rejects.toThrow(/Could not read http:\/\/127\.0\.0\.1:9\/effects\/2026-11-20\/mail\.json/);
    expect(await createDeliveryStore(opened.db).status("2026-11-20")).toBeNull();
    expect(smtp.mails).toHaveLength(0);
  });

  it("never mails the list an Effect dated after today in the brand's time zone; a test mail may go", async () => {
    await seedConfirmed(opened.db, 3);
    const tomorrow = dayIn(contentIdentity().timeZone, new Date(Date.now() + 86_400_000));
    publishEdition(publicDir, fixtureEdition(tomorrow, SITE));
    await expect(
      runEffectCommand({ action: "send", date: tomorrow, retryUnknown: false }, context()),
    ).rejects.toThrow(`The Effect of ${tomorrow} is dated after today`);
    expect(await createDeliveryStore(opened.db).status(tomorrow)).toBeNull();
    expect(smtp.mails).toHaveLength(0);
    const test = await runEffectCommand(
      { action: "send", date: tomorrow, to: "owner@example.com", retryUnknown: false },
      context(),
    );
    expect(test).toContain("Test mail of the Effect of");
    expect(received(await smtp.waitForMails(1))).toEqual(["owner@example.com"]);
  });
});

/** The end of the lease a sender took on its batch, once it has one. */
async function leaseTaken(db: SqlExecutor): Promise<Date> {
  const until = await eventually(
    async () =>
      (
        await db.query<{ until: Date | null }>(
          "select min(lease_until) as until from effect_deliveries where status = 'sending'",
        )
      )[0]?.until,
    { what: "a sender's lease on its batch", intervalMs: 20 },
  );
  return new Date(until as Date);
}
