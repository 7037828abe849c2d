/**
 * Abuse of the signup and the mail links, each a probe from a security read, through HTTP
 * against the local stack with mail in its outbox:
 * - one client filling a victim's inbox with `victim+11@…` … `victim+20@…`;
 * - one client making the stack send mail to many inboxes in a day (reminders included);
 * - a stranger's signup overwriting an unsubscribed address's consent, and the purge then
 *   deleting the record of the unsubscribe;
 * - the link endpoints answering any number of calls.
 * The signup's answer is the same `200 {"status":"pending"}` whether a mail goes out or not.
 */
import { linkIn, readOutbox, recipients, waitForMailsTo } from "../../test/support/outbox.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

let counter = 0;
const unique = (name: string) => `${name}-${Date.now().toString(36)}-${++counter}`;
/** The mails written to the outbox for matching addresses, once every due mail has been delivered. */
async function mailCountTo(stack: TestStack, match: (address: string) => boolean): Promise<number> {
  await stack.drainMail();
  return (await readOutbox(stack.outbox)).filter((mail) => recipients(mail).some(match)).length;
}

/**
 * Moves the stack's clock to the next noon UTC: a mailbox's daily cap counts per UTC day
 * (subscriber-store.ts), and a test run just before midnight would see the cap reset in the
 * minutes its signups take (a CI run at 23:55 UTC got five mails where two were due).
 */
function toNoonUtc(stack: TestStack): void {
  const now = stack.now();
  const noon = new Date(now);
  noon.setUTCHours(12, 0, 0, 0);
  if (noon <= now) noon.setUTCDate(noon.getUTCDate() + 1);
  stack.advance((noon.getTime() - now.getTime()) / 1000);
}

describe("signups from one client", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack("PGlite", { CONFIRMATION_MAILS_PER_CLIENT_PER_DAY: "5" });
    toNoonUtc(stack);
  });
  afterAll(() => stack?.close());

  it("put one confirmation mail in an inbox however its address is spelt with +tags", async () => {
    const victim = unique("victim");
    const answers: unknown[] = [];
    for (let n = 11; n <= 20; n++) {
      const response = await stack.post("send-confirmation", { email: `${victim}+${n}@example.com` });
      answers.push([response.status, await response.json()]);
    }
    expect(answers).toEqual(Array(10).fill([200, { status: "pending" }]));
    expect(await mailCountTo(stack, (address) => address.startsWith(`${victim}+`))).toBe(1);
    // The mailbox's daily cap counts the variants together too, after each cooldown.
    for (let n = 21; n <= 30; n++) {
      stack.advance(61);
      await stack.post("send-confirmation", { email: `${victim.toUpperCase()}+${n}@example.com` });
    }
    // Two confirmations went out; the first signup's reminder, queued with it, is the day's third mail.
    const toVictim = (address: string) => address.toLowerCase().startsWith(`${victim}+`);
    expect(await mailCountTo(stack, toVictim)).toBe(2);
    stack.advance(25 * 3600);
    expect(await mailCountTo(stack, toVictim)).toBe(3);
  });

  it("put one confirmation mail in a Gmail inbox however its dots are placed", async () => {
    const name = unique("dotted").replace(/[^a-z0-9]/g, "");
    const spellings = [
      `${name}@gmail.com`,
      `${name.split("").join(".")}@gmail.com`,
      `${name.slice(0, 3)}.${name.slice(3)}@googlemail.com`,
    ];
    for (const email of spellings)
      expect((await stack.post("send-confirmation", { email })).status).toBe(200);
    expect(await mailCountTo(stack, (address) => address.replace(/\./g, "").startsWith(name))).toBe(1);
  });

  it("cause at most the client's daily number of mails, with the same answer after it", async () => {
    stack.advance(86_400);
    const prefix = unique("many");
    for (let n = 0; n < 8; n++) {
      const response = await stack.post(
        "send-confirmation",
        { email: `${prefix}-${n}@example.org` },
        { headers: { "x-forwarded-for": "203.0.113.50" } },
      );
      expect([response.status, await response.json()]).toEqual([200, { status: "pending" }]);
    }
    await stack.drainMail();
    // Each signup's reminder counts too: three confirmations and two reminders make the five.
    const jobs = await stack.server.db.query<{ kind: string; n: number }>(
      "select kind, count(*)::int as n from mail_jobs where recipient like $1 group by kind order by kind",
      [`${prefix}-%`],
    );
    expect(jobs.map((job) => [job.kind, Number(job.n)])).toEqual([
      ["confirmation", 3],
      ["reminder", 2],
    ]);
    stack.advance(25 * 3600);
    // (A day on, the earlier tests' signups got their reminders: only this client's mails count here.)
    expect(await mailCountTo(stack, (address) => address.startsWith(`${prefix}-`))).toBe(5);
  });
});

describe("an unsubscribed address signed up by a stranger", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack("PGlite");
  });
  afterAll(() => stack?.close());

  const row = async (email: string) =>
    (await stack.server.backend.admin.list()).find((subscriber) => subscriber.email === email);

  it("keeps its confirmed consent and its unsubscribe, also through the one-week purge", async () => {
    const email = `${unique("reader")}@example.com`;
    await stack.post(
      "send-confirmation",
      { email },
      { headers: { referer: `${stack.origin}/effects/2026-11-20/` } },
    );
    const [mail] = await waitForMailsTo(stack.outbox, email);
    await stack.post("confirm-subscription", { token: linkIn(mail, "confirm").searchParams.get("confirm") });
    await stack.post("unsubscribe", { token: linkIn(mail, "unsubscribe").searchParams.get("unsubscribe") });
    const unsubscribed = await row(email);
    expect(unsubscribed).toMatchObject({
      status: "unsubscribed",
      consent_source: `${stack.origin}/effects/2026-11-20/`,
    });

    stack.advance(3_600);
    await stack.post("send-confirmation", { email }, { headers: { referer: "https://forged.example/page" } });
    const resigned = await row(email);
    // Pending again, its own consent beside the confirmed one; history untouched.
    expect(resigned).toMatchObject({
      status: "pending",
      consent_source: unsubscribed?.consent_source,
      consent_at: unsubscribed?.consent_at,
      confirmed_at: unsubscribed?.confirmed_at,
      unsubscribed_at: unsubscribed?.unsubscribed_at,
      pending_consent_source: "https://forged.example/page",
    });

    stack.advance(8 * 86_400);
    await stack.server.backend.purge(stack.now());
    expect(await row(email)).toMatchObject({
      status: "unsubscribed",
      consent_source: unsubscribed?.consent_source,
      confirmed_at: unsubscribed?.confirmed_at,
      unsubscribed_at: unsubscribed?.unsubscribed_at,
      pending_consent_source: null,
    });
  });
});

describe("the mail links' endpoints", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack("PGlite", { LINK_RATE_LIMIT_PER_MINUTE: "5" });
  });
  afterAll(() => stack?.close());

  it.each(["confirm-subscription", "unsubscribe"])("limit %s per client and minute", async (name) => {
    // The limit counts per clock minute: start at the top of one, so the seven calls share it.
    stack.advance(60 - (stack.now().getTime() % 60_000) / 1000);
    const statuses: number[] = [];
    for (let n = 0; n < 7; n++)
      statuses.push(
        (await stack.post(name, { token: "A".repeat(43) }, { headers: { "x-forwarded-for": "x" } })).status,
      );
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
    stack.advance(60);
    expect((await stack.post(name, { token: "A".repeat(43) })).status).toBe(404);
  });
});
