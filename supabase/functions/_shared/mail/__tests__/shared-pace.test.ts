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
  from: "The Purpose Effect <effect@thepurposeeffect.example>",
  to,
  subject: "Effect of the Day",
  text: "Today's Effect",
  html: "<p>Today's Effect</p>",
  headers: {},
});

/** Two senders, three mails each, at once; the retries a 429 asks for are not waited (no retry). */
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
      retry: { attempts: 1 },
    }),
  );
  const started = Date.now();
  const results = await Promise.allSettled(
    senders.flatMap((sender, s) =>
      [1, 2, 3].map((n) => sender.send(message(`reader-${s}-${n}@example.com`))),
    ),
  );
  return {
    seconds: (Date.now() - started) / 1000,
    refused: resend.requests.filter((request) => request.status === 429).length,
    sent: results.filter((result) => result.status === "fulfilled").length,
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

  it("is shared by two senders: six mails at 2 requests a second, none refused", async () => {
    resend = await startResendStandIn({ requestsPerSecond: 2 });
    const shared = await sendFromTwo(resend, () => createDatabasePace(db, "resend", 2));
    expect(shared).toMatchObject({ refused: 0, sent: 6 });
    // Six slots half a second apart (and a little): the last starts 2.5 s after the first.
    expect(shared.seconds).toBeGreaterThanOrEqual(2.5);
  });

  it("where a pace per sender is refused: the same two senders, each on its own, get 429s", async () => {
    resend = await startResendStandIn({ requestsPerSecond: 2 });
    const alone = await sendFromTwo(resend, () => undefined);
    expect(alone.refused).toBeGreaterThan(0);
    expect(alone.sent).toBeLessThan(6);
  });

  it("keeps one pace per account name, and 0 asks the database nothing", async () => {
    resend = await startResendStandIn();
    await createDatabasePace(db, "other-account", 0).take();
    const rows = await db.query<{ name: string }>("select name from mail_pace order by name");
    expect(rows.map((row) => row.name)).toEqual(["resend"]);
  });
});
