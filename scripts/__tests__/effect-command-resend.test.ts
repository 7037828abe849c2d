/**
 * `npm run effect -- send` over Resend's HTTP API, killed with SIGKILL while Resend holds a batch
 * it has accepted but not yet answered: the next run sends that batch again as the same request
 * (its idempotency key, the same bytes), Resend sends it once, and nothing is ever `unknown`.
 * Against the stand-in that keeps Resend's rules (batches of 100, keys kept, a key reused with
 * another body refused).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createDeliveryStore } from "../../supabase/functions/_shared/effect-sending/delivery-store.ts";
import { effectContext, runEffectCommand } from "../../server/effect-commands.ts";
import { createPgliteExecutor } from "../../server/pglite-executor.ts";
import {
  contentIdentity,
  fixtureEdition,
  publishEdition,
  readerAddress,
  seedConfirmed,
} from "../../test/support/effect-fixtures.ts";
import { type ResendStandIn, startResendStandIn } from "../../test/support/resend-stand-in.ts";
import { preparedDataDir } from "../../test/support/test-stack.ts";
import { typeScript } from "../../test/support/process.ts";

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "scripts/effect.ts");
const DATE = "2026-11-23";
const SITE = "https://www.thepurposeeffect.example";
const READERS = 450;

const until = async (condition: () => boolean, what: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("a send over Resend killed with SIGKILL mid-request", () => {
  let resend: ResendStandIn;
  let dataDir: string;
  let publicDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    resend = await startResendStandIn();
    dataDir = await preparedDataDir();
    publicDir = mkdtempSync(path.join(tmpdir(), "effect-public-"));
    publishEdition(publicDir, fixtureEdition(DATE, SITE));
    const db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    await seedConfirmed(db, READERS);
    await db.close();
    env = {
      DATA_DIR: dataDir,
      PUBLIC_DIR: publicDir,
      SITE_URL: SITE,
      SMTP_URL: "",
      RESEND_API_KEY: resend.apiKey,
      RESEND_API_URL: resend.url,
      RESEND_REQUESTS_PER_SECOND: "0",
      MAIL_RATE_PER_SECOND: "0",
      EFFECT_BATCH_SIZE: "500",
    };
  });
  afterAll(async () => {
    await resend?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(publicDir, { recursive: true, force: true });
  });

  it("sends the batch in doubt again under its key: every reader gets the Effect once, none is unknown", async () => {
    // A request after the first two is accepted and never answered: the sender is killed while it waits.
    resend.dropAnswers(0);
    const accepted = () => resend.requests.filter((request) => request.path === "/emails/batch").length;
    // Node itself, not npm, so the signal reaches the sender.
    let child: ChildProcess | undefined;
    const firstTwoAnswered = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (accepted() === 2) {
          clearInterval(check);
          resend.holdAnswers(1);
          resolve();
        }
      }, 1);
    });
    child = spawn(process.execPath, typeScript(CLI, "send", DATE), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    await firstTwoAnswered;
    const held = () => resend.requests.find((request) => request.status === "dropped");
    await until(() => held() !== undefined, "the held batch");
    child.kill("SIGKILL");
    await exited;
    child = undefined;
    const heldKey = held()?.idempotencyKey;
    const deliveredBefore = resend.mails.length;
    expect(deliveredBefore).toBeLessThan(READERS);

    const { stdout } = await promisify(execFile)(process.execPath, typeScript(CLI, "send", DATE), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    expect(stdout).toMatch(/unknown\s+0/);

    const db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    try {
      const status = await createDeliveryStore(db).status(DATE);
      expect(status?.counts).toMatchObject({ sent: READERS, unknown: 0, sending: 0, queued: 0 });
      const pending = await db.query<{ count: number }>(
        "select count(*)::int as count from effect_deliveries where pending_token is not null",
      );
      expect(pending[0].count).toBe(0);
    } finally {
      await db.close();
    }
    // The held batch went again under its own key, and Resend kept it to one send.
    expect(resend.requests.filter((request) => request.idempotencyKey === heldKey).length).toBe(2);
    for (let i = 1; i <= READERS; i++) expect(resend.received(readerAddress(i))).toBe(1);
    expect(resend.requests.every((request) => request.mails <= 100)).toBe(true);
  });

  it("keeps a batch with no clear answer in doubt under its key, and sends it again after the pause: once each", async () => {
    const db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    const date = "2026-11-22";
    publishEdition(publicDir, fixtureEdition(date, SITE));
    const before = new Map(
      Array.from({ length: READERS }, (_, i) => [
        readerAddress(i + 1),
        resend.received(readerAddress(i + 1)),
      ]),
    );
    const earlier = resend.requests.length;
    try {
      // Every try of the first request is taken and its answer lost: the transport gives up.
      resend.dropAnswers(4);
      const output = await runEffectCommand(
        { action: "send", date, retryUnknown: false },
        effectContext(
          { ...env, MAIL_RETRY_BASE_SECONDS: "0.2", MAIL_RETRY_MAX_SECONDS: "1" },
          {
            db,
            dataDir,
            publicDir,
            log: { info: () => undefined, warn: () => undefined, error: () => undefined },
            identity: contentIdentity(),
          },
          SITE,
        ),
      );
      expect(output).toMatch(/unknown\s+0/);
      const status = await createDeliveryStore(db).status(date);
      expect(status?.counts).toMatchObject({ sent: READERS, unknown: 0, sending: 0 });
      const requests = resend.requests.slice(earlier);
      // Two batches are in flight: the four lost answers fall on one or both. Each lost request
      // went again under its own key, the same bytes, until one answer came: a 200.
      const byKey = new Map<string, Array<number | string>>();
      for (const request of requests)
        byKey.set(request.idempotencyKey ?? "", [
          ...(byKey.get(request.idempotencyKey ?? "") ?? []),
          request.status,
        ]);
      const lost = [...byKey.values()].filter((statuses) => statuses.includes("dropped"));
      expect(lost.length).toBeGreaterThan(0);
      for (const statuses of lost) {
        expect(statuses.at(-1)).toBe(200);
        expect(statuses.slice(0, -1).every((status) => status === "dropped")).toBe(true);
      }
      expect(lost.flat().filter((status) => status === "dropped")).toHaveLength(4);
      for (const [address, count] of before) expect(resend.received(address)).toBe(count + 1);
    } finally {
      await db.close();
    }
  });
});
