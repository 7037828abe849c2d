/**
 * Row locks on a real PostgreSQL server: a resend that supersedes a queued mail while a sender
 * records that same mail as sent. Both take the subscriber's row before the job's, so one waits
 * for the other instead of the two deadlocking (PostgreSQL would abort one of them).
 */
import postgres from "postgres";
import { eventually } from "../../test/support/eventually.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { createMailQueue } from "../../supabase/functions/_shared/mail/mail-queue.ts";
import { createSubscriberStore } from "../../supabase/functions/_shared/subscriptions/subscriber-store.ts";
import { migrate } from "../migrations.ts";
import { createTestDatabase, type TestDatabase, testPostgresUrl } from "../../test/support/databases.ts";

const postgresUrl = testPostgresUrl();
const limits = {
  resendCooldownSeconds: 60,
  confirmationMailsPerDay: 3,
  confirmationMailsPerClientPerDay: 1000,
  purgePendingAfterDays: 7,
};

(postgresUrl ? describe : describe.skip)("a resend while the previous mail is being recorded as sent", () => {
  let database: TestDatabase;
  let db: SqlExecutor;
  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl as string);
    db = createPostgresExecutor(database.url, { max: 4 });
    await migrate(db);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("lets both finish, one after the other, and sends the newest link only", async () => {
    const subscriptions = createSubscriberStore(db);
    const queue = createMailQueue(db);
    const signedUp = new Date();
    const signup = (now: Date) =>
      subscriptions.signup({
        email: "race@example.com",
        consentSource: null,
        now,
        limits,
        confirmTokenTtlHours: 24,
      });
    const first = await signup(signedUp);
    const [job] = await queue.claimDue(signedUp, new Date(signedUp.getTime() + 120_000), 10);
    expect(job.id).toBe(first.mailJobId);

    // Another session holds the subscriber's row, so both calls queue behind it: the resend first.
    const holder = postgres(database.url, { max: 1 });
    const observer = postgres(database.url, { max: 1 });
    let release = () => undefined as void;
    let locked = () => undefined as void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const held = holder.begin(async (tx) => {
      await tx`select id from subscribers where email = 'race@example.com' for update`;
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    // The row is held before either call starts (a call started earlier could take it first);
    // each call is seen waiting on the lock before the next starts, so they queue in this order.
    await holding;
    const resend = signup(new Date(signedUp.getTime() + 61_000));
    await untilWaiting(observer, 1);
    const sent = queue.markSent(job.id, new Date(signedUp.getTime() + 62_000));
    await untilWaiting(observer, 2);
    release();
    await held;
    await holder.end();
    await observer.end();

    const [resent, marked] = await Promise.allSettled([resend, sent]);
    expect(resent.status).toBe("fulfilled");
    expect(marked.status).toBe("fulfilled");
    const jobs = await db.query<{ id: string; status: string }>(
      `select id, status from mail_jobs where kind = 'confirmation' order by created_at`,
    );
    // The first mail went out (it is recorded as sent); the resend's is the one still queued.
    expect(jobs.map((row) => row.status)).toEqual(["sent", "queued"]);
  });
});

/** Waits until `count` sessions of the test's database wait on a lock (pg_stat_activity). */
async function untilWaiting(sql: ReturnType<typeof postgres>, count: number): Promise<void> {
  await eventually(
    async () =>
      (
        await sql<{ waiting: number }[]>`
          select count(*)::int as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`
      )[0].waiting,
    { what: `${count} sessions waiting on a lock`, intervalMs: 10, until: (waiting) => waiting === count },
  );
}
