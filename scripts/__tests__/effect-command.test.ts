/**
 * `npm run effect` as an operator runs it: a separate process, killed with SIGKILL in the middle
 * of a send and run again (PGlite and PostgreSQL); preview, a test mail, status; a published
 * Effect read from SITE_URL; and, with a local stack holding the PGlite folder, the same commands
 * handed to that stack, which also sends the day's Effect by itself at SEND_AT.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import { createDeliveryStore } from "../../supabase/functions/_shared/effect-sending/delivery-store.ts";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { mailEditionPath } from "../../supabase/functions/_shared/contract/published.ts";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { migrate } from "../../server/migrations.ts";
import { createPgliteExecutor } from "../../server/pglite-executor.ts";
import { createTestDatabase, type TestDatabase, testPostgresUrl } from "../../test/support/databases.ts";
import { fixtureEdition, publishEdition, seedConfirmed } from "../../test/support/effect-fixtures.ts";
import type { LoopbackServer } from "../../test/support/loopback-http.ts";
import { linkIn, recipients } from "../../test/support/outbox.ts";
import { servePublishedSite } from "../../test/support/published-site.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { eventually } from "../../test/support/eventually.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { preparedDataDir, startTestStack } from "../../test/support/test-stack.ts";
import { readSenderIdentity } from "../../src/content/read-brand.ts";
import { parseCommandLine } from "../effect.ts";
import { typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "scripts/effect.ts");
const DATE = "2026-11-23";
const SITE = "https://www.thepurposeeffect.example";

function effect(args: string[], env: Record<string, string>) {
  return promisify(execFile)(process.execPath, typeScript(CLI, ...args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
}

const duplicates = (addresses: string[]) =>
  addresses.filter((address, i) => addresses.indexOf(address) !== i);

describe("the effect command line", () => {
  it("reads its arguments with util.parseArgs and refuses what it does not know", () => {
    expect(parseCommandLine(["send", DATE, "--retry-unknown"])).toEqual({
      action: "send",
      date: DATE,
      retryUnknown: true,
      to: undefined,
    });
    expect(parseCommandLine(["send", DATE, "--to", "me@example.com"])).toMatchObject({
      to: "me@example.com",
    });
    expect(() => parseCommandLine(["send", "2026-02-30"])).toThrow(/YYYY-MM-DD/);
    expect(() => parseCommandLine(["mail", DATE])).toThrow(/Unknown command "mail"/);
    expect(() => parseCommandLine(["status", DATE, "--to", "x@example.com"])).toThrow(/options of send/);
    expect(() => parseCommandLine(["send", DATE, "--force"])).toThrow(/--force/);
  });
});

interface Storage {
  env: Record<string, string>;
  db(): Promise<SqlExecutor>;
  close(): Promise<void>;
}

async function pgliteStorage(publicDir: string): Promise<Storage> {
  const dataDir = await preparedDataDir();
  return {
    env: { DATA_DIR: dataDir, PUBLIC_DIR: publicDir },
    // Opened only while no command runs: PGlite is one process's.
    db: () => createPgliteExecutor(path.join(dataDir, "pglite")),
    async close() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function postgresStorage(publicDir: string): Promise<Storage> {
  const database: TestDatabase = await createTestDatabase(testPostgresUrl() as string);
  const db = createPostgresExecutor(database.url);
  await migrate(db);
  await db.close();
  const dataDir = mkdtempSync(path.join(tmpdir(), "effect-data-"));
  return {
    env: { DATABASE_URL: database.url, DATA_DIR: dataDir, PUBLIC_DIR: publicDir },
    db: async () => createPostgresExecutor(database.url),
    async close() {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until every lease a sender holds has run out by this machine's clock, as the next run judges it. */
async function untilLeasesRunOut(storage: Storage): Promise<void> {
  const db = await storage.db();
  try {
    await eventually(
      async () =>
        (
          await db.query<{ until: Date | null }>(
            "select max(lease_until) as until from effect_deliveries where status = 'sending'",
          )
        )[0]?.until ?? null,
      {
        what: "the killed sender's leases to run out (the latest lease)",
        intervalMs: 50,
        until: (until) => until === null || new Date(until).getTime() < Date.now(),
      },
    );
  } finally {
    await db.close();
  }
}

forEachBackend("a send killed with SIGKILL on %s", (backend) => {
  const open = backend === "PGlite" ? pgliteStorage : postgresStorage;
  let smtp: SmtpCapture;
  let publicDir: string;
  let storage: Storage;
  let env: Record<string, string>;

  beforeAll(async () => {
    smtp = await createSmtpCapture();
    publicDir = mkdtempSync(path.join(tmpdir(), "effect-public-"));
    publishEdition(publicDir, fixtureEdition(DATE, SITE));
    storage = await open(publicDir);
    const db = await storage.db();
    await seedConfirmed(db, 300);
    await db.close();
    env = {
      ...storage.env,
      SITE_URL: SITE,
      SMTP_URL: smtp.url,
      // 20 ms between mails: the kill lands inside a batch, not between two.
      MAIL_RATE_PER_SECOND: "50",
      EFFECT_BATCH_SIZE: "20",
      // A killed sender's lease runs out quickly, for PostgreSQL, where nobody knows it died.
      EFFECT_LEASE_SECONDS: "2",
    };
  });
  afterAll(async () => {
    await smtp?.stop();
    await storage?.close();
    rmSync(publicDir, { recursive: true, force: true });
  });

  it("mails nobody twice, sends everything not in doubt on the next run, and the rest only on request", async () => {
    // Node itself, not npm, so the signal reaches the sender.
    const child: ChildProcess = spawn(process.execPath, typeScript(CLI, "send", DATE), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await smtp.waitForMails(50, 60_000);
    child.kill("SIGKILL");
    await exited;
    const before = smtp.mails.length;
    expect(before).toBeLessThan(300);

    // PostgreSQL cannot tell a dead sender from a slow one until its lease has run out.
    if (env.DATABASE_URL) await untilLeasesRunOut(storage);
    const started = Date.now();
    const { stdout } = await effect(["send", DATE], env);
    const restartMs = Date.now() - started;
    const db = await storage.db();
    const status = await createDeliveryStore(db).status(DATE);
    const sentTo = (
      await db.query<{ recipient: string }>(`select recipient from effect_deliveries where status = 'sent'`)
    ).map((row) => row.recipient);
    await db.close();

    const addresses = smtp.mails.flatMap(recipients);
    expect(duplicates(addresses)).toEqual([]);
    expect(status?.counts.sent).toBe(sentTo.length);
    // The batch in flight is in doubt (at most one batch); everything else went out.
    expect(status?.counts.unknown).toBeGreaterThan(0);
    expect(status?.counts.unknown).toBeLessThanOrEqual(20);
    expect((status?.counts.sent ?? 0) + (status?.counts.unknown ?? 0)).toBe(300);
    for (const address of sentTo) expect(addresses).toContain(address);
    expect(stdout).toMatch(/unknown\s+\d+/);
    // 250 mails at 50/s: the rest goes out within seconds of the restart.
    expect(restartMs).toBeLessThan(30_000);

    const statusOutput = await effect(["status", DATE], env);
    expect(statusOutput.stdout).toMatch(/may or may not have arrived.*--retry-unknown/);
    const retried = await effect(["send", DATE, "--retry-unknown"], env);
    expect(retried.stdout).toMatch(/unknown\s+0/);
    expect(new Set(smtp.mails.flatMap(recipients)).size).toBe(300);
  });
});

describe("preview, a test mail, status, and an Effect read from SITE_URL", () => {
  let smtp: SmtpCapture;
  let storage: Storage;
  let site: LoopbackServer;
  let siteUrl: string;
  let env: Record<string, string>;
  let emptyPublic: string;

  beforeAll(async () => {
    smtp = await createSmtpCapture();
    emptyPublic = mkdtempSync(path.join(tmpdir(), "effect-public-"));
    storage = await pgliteStorage(emptyPublic);
    const db = await storage.db();
    await seedConfirmed(db, 3);
    await db.close();
    site = await servePublishedSite({
      [mailEditionPath(DATE)]: (url: string) => fixtureEdition(DATE, url),
    });
    siteUrl = site.url;
    env = { ...storage.env, SITE_URL: siteUrl, SMTP_URL: smtp.url };
  });
  afterAll(async () => {
    await smtp?.stop();
    await storage?.close();
    await site?.close();
    if (emptyPublic) rmSync(emptyPublic, { recursive: true, force: true });
  });

  it("writes the preview as .eml and .html and prints their paths", async () => {
    const { stdout } = await effect(["preview", DATE], env);
    const eml = path.join(env.DATA_DIR, "preview", `${DATE}.eml`);
    const html = path.join(env.DATA_DIR, "preview", `${DATE}.html`);
    expect(stdout).toContain(eml);
    expect(stdout).toContain(html);
    expect(readFileSync(eml, "utf8")).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(readFileSync(html, "utf8")).toMatch(
      new RegExp(`href="${siteUrl}/\\?unsubscribe=[A-Za-z0-9_-]{43}"`),
    );
    expect(smtp.mails).toHaveLength(0);
  });

  it("sends one test mail with --to and records nothing for the list", async () => {
    const { stdout } = await effect(["send", DATE, "--to", "Editor@Example.com"], env);
    expect(stdout).toMatch(/Test mail .* sent to E•••@example\.com/);
    const [mail] = await smtp.waitForMails(1);
    expect(recipients(mail)).toEqual(["Editor@example.com"]);
    expect((await effect(["status", DATE], env)).stdout).toMatch(/not prepared/);
  });

  it("says clearly when the Effect is not published, and queues nothing", async () => {
    await expect(effect(["send", "2026-11-01"], env)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("The Effect of 2026-11-01 is not published"),
    });
    expect((await effect(["status", "2026-11-01"], env)).stdout).toMatch(/not prepared/);
  });

  it("sends the Effect published at SITE_URL to the list", async () => {
    const { stdout } = await effect(["send", DATE], env);
    expect(stdout).toMatch(/Prepared the Effect of 2026-11-23 for 3 confirmed subscribers/);
    expect(stdout).toMatch(/sent\s+3/);
    await smtp.waitForMails(4);
    expect(smtp.mails.slice(1).every((mail) => mail.text?.includes(`${siteUrl}/effects/${DATE}/`))).toBe(
      true,
    );
  });
});

describe("with a local stack holding the PGlite folder", () => {
  it("marks at start what a killed process left in sending as unknown, and sends it only on request", async () => {
    const smtp = await createSmtpCapture();
    const publicDir = mkdtempSync(path.join(tmpdir(), "effect-public-"));
    publishEdition(publicDir, fixtureEdition(DATE, SITE));
    const dataDir = await preparedDataDir();
    // A sender that claimed a batch and died before recording it.
    const db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    await seedConfirmed(db, 5);
    const store = createDeliveryStore(db);
    await store.prepare(fixtureEdition(DATE, SITE), new Date());
    await store.claim(DATE, "dead-sender", new Date(), new Date(Date.now() + 3_600_000), 2);
    await db.close();
    const stack = await startTestStack("PGlite", {
      DATA_DIR: dataDir,
      PUBLIC_DIR: publicDir,
      SMTP_URL: smtp.url,
    });
    try {
      expect(stack.logs.join("\n")).toMatch(
        /2 Effect mails were being sent when the last process stopped: marked unknown/,
      );
      const env = { DATA_DIR: dataDir, PUBLIC_DIR: publicDir };
      expect((await effect(["send", DATE], env)).stdout).toMatch(/This run: 3 sent/);
      expect((await effect(["status", DATE], env)).stdout).toMatch(/unknown\s+2/);
      expect((await effect(["send", DATE, "--retry-unknown"], env)).stdout).toMatch(/This run: 2 sent/);
      expect(new Set(smtp.mails.flatMap(recipients)).size).toBe(5);
      expect(smtp.mails).toHaveLength(5);
    } finally {
      await stack.close();
      await smtp.stop();
      rmSync(publicDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("still starts where its data folder's path is too long for a socket, and says what that costs", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "effect-long-"));
    const dataDir = path.join(
      parent,
      "a-data-folder-whose-path-is-longer-than-a-unix-socket-address-may-be".repeat(2),
    );
    const stack = await startTestStack("PGlite", { DATA_DIR: dataDir });
    try {
      expect(
        (await fetch(`${stack.url}/functions/v1/unsubscribe`, { method: "OPTIONS" })).status,
      ).toBeLessThan(500);
      expect(stack.logs.join("\n")).toMatch(
        /warning: npm run effect, npm run subscribers and npm run report cannot reach this stack/,
      );
      await expect(effect(["status", DATE], { DATA_DIR: dataDir })).rejects.toMatchObject({
        stderr: expect.stringContaining("which does not take effect commands"),
      });
    } finally {
      await stack.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it("hands the commands to the stack, which also sends the day's Effect at SEND_AT", async () => {
    const smtp = await createSmtpCapture();
    const publicDir = mkdtempSync(path.join(tmpdir(), "effect-public-"));
    const stack = await startTestStack("PGlite", {
      SMTP_URL: smtp.url,
      PUBLIC_DIR: publicDir,
      SEND_AT: "00:00",
    });
    try {
      const addresses = ["first@example.com", "second@example.com"];
      for (const email of addresses)
        expect((await stack.post("send-confirmation", { email })).status).toBe(200);
      for (const mail of await smtp.waitForMails(2))
        await stack.post("confirm-subscription", {
          token: linkIn(mail, "confirm").searchParams.get("confirm"),
        });
      // Published after the subscribers confirmed; the restarted stack finds it due at once.
      // The stack counts the day in content/brand.yaml's time zone, which is not UTC's for hours a day.
      const today = dayIn(readSenderIdentity(path.resolve("content")).timeZone, stack.now());
      publishEdition(publicDir, fixtureEdition(today, stack.origin));
      await stack.restart();
      const mails = await smtp.waitForMails(4, 30_000);
      expect(mails.slice(2).flatMap(recipients).sort()).toEqual(addresses);

      const env = { DATA_DIR: stack.dataDir, PUBLIC_DIR: publicDir };
      const status = await effect(["status", today], env);
      expect(status.stdout).toContain("(run by the local stack");
      expect(status.stdout).toMatch(/sent\s+2/);
      const again = await effect(["send", today], env);
      expect(again.stdout).toMatch(/This run: 0 sent/);
      expect(existsSync(path.join(stack.dataDir, "effect.sock"))).toBe(true);
      expect(smtp.mails).toHaveLength(4);
    } finally {
      await stack.close();
      await smtp.stop();
      rmSync(publicDir, { recursive: true, force: true });
    }
  });
});
