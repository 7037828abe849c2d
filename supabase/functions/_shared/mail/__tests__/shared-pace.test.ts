/**
 * Resend's limit is per account, whatever process asks. Two senders (two overlapping send-effect
 * calls, or a call beside the confirmations) each with its own pace ask twice as fast and are
 * answered 429; with the pace kept in the database they share the account's rate and none is.
 * On PGlite (the same SQL as PostgreSQL), against the Resend stand-in at 2 requests a second.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { createPgliteExecutor } from "../../../../../server/pglite-executor.ts";
import { startResendStandIn, type ResendStandIn } from "../../../../../test/support/resend-stand-in.ts";
import { preparedDataDir } from "../../../../../test/support/test-stack.ts";
import type { SqlExecutor } from "../../db/sql-executor.ts";
import type { MailMessage } from "../mailer.ts";
import { createResendMailer } from "../resend.ts";
import { createDatabasePace } from "../shared-pace.ts";

const message = (to: string): MailMessage => ({
  from: { name: "The Purpose Effect", address: "effect@thepurposeeffect.example" },
  to,
  subject: "Effect of the Day",
  text: "Today's Effect",
  html: "<p>Today's Effect</p>",
  headers: {},
});

/**
 * Two senders, three mails each, at once, each retrying a 429 as it would. What the account saw:
 * when each request arrived, and how many were refused.
 */
async function sendFromTwo(
  resend: ResendStandIn,
  pace: (sender: string) => Parameters<typeof createResendMailer>[0]["pace"],
) {
  const senders = ["one", "two"].map((sender) =>
    createResendMailer({
      apiKey: resend.apiKey,
      apiUrl: resend.url,
      requestsPerSecond: 2,
      pace: pace(sender),
    }),
  );
  await Promise.all(
    senders.flatMap((sender, s) =>
      [1, 2, 3].map((n) => sender.send(message(`reader-${s}-${n}@example.com`))),
    ),
  );
  const arrivals = resend.requests.map((request) => request.at).sort((a, b) => a - b);
  return {
    refused: resend.requests.filter((request) => request.status === 429).length,
    delivered: resend.mails.length,
    /** From the first request to the last, in seconds. */
    span: (arrivals.at(-1)! - arrivals[0]) / 1000,
    /** Between the first two requests, in ms: two senders asking at once, or one slot after the other. */
    firstGapMs: arrivals[1] - arrivals[0],
    /**
     * The median time between one request and the next, in ms. With the pace shared, the slots:
     * a request held back by a busy machine after its slot shortens the gap after it and lengthens
     * the one before, so the first gap alone is not the pace there.
     */
    medianGapMs: arrivals
      .slice(1)
      .map((at, i) => at - arrivals[i])
      .sort((a, b) => a - b)[Math.floor((arrivals.length - 1) / 2)],
  };
}

describe("the mail API's pace, kept in the database", () => {
  let dataDir: string;
  let db: SqlExecutor;
  let resend: ResendStandIn;

  beforeAll(async () => {
    dataDir = await preparedDataDir();
    db = await createPgliteExecutor(path.join(dataDir, "pglite"));
  });
  afterEach(async () => {
    await resend?.close();
  });
  afterAll(async () => {
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is shared by two senders: their six requests reach the account one slot apart, every mail once", async () => {
    resend = await startResendStandIn({ requestsPerSecond: 2 });
    const shared = await sendFromTwo(resend, () => createDatabasePace(db, "resend", 2));
    expect(shared.delivered).toBe(6);
    // Six slots 515 ms apart: a busy machine can only spread them further.
    expect(shared.span).toBeGreaterThanOrEqual(2.5);
    expect(shared.medianGapMs).toBeGreaterThan(400);
    // None refused, but for a request that arrived late beside one on time (the margin is 15 ms).
    expect(shared.refused).toBeLessThanOrEqual(1);
  });

  it("where a pace per sender is not: the same two senders ask at once, and the account refuses", async () => {
    resend = await startResendStandIn({ requestsPerSecond: 2 });
    const alone = await sendFromTwo(resend, () => undefined);
    expect(alone.delivered).toBe(6);
    expect(alone.firstGapMs).toBeLessThan(400);
    expect(alone.refused).toBeGreaterThan(0);
  });

  it("keeps one pace per account name, and 0 asks the database nothing", async () => {
    resend = await startResendStandIn();
    await createDatabasePace(db, "other-account", 0).take();
    const rows = await db.query<{ name: string }>("select name from mail_pace order by name");
    expect(rows.map((row) => row.name)).toEqual(["resend"]);
  });
});
