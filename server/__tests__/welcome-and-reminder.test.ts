/**
 * The welcome mail and the one reminder, through the local stack on PGlite and on PostgreSQL with
 * a real SMTP server on loopback: a reader who confirms gets the latest Effect once, and the day's
 * send does not mail it to them again; an address still unconfirmed a day after its mail gets one
 * reminder with a fresh link, never a second, and the purge then takes it as before; the reminder
 * counts in the mailbox's daily cap and one mailbox gets one reminder per purge window.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ParsedMail } from "mailparser";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import {
  contentIdentity,
  fixtureEdition,
  publishEdition,
  publishLatest,
  readerAddress,
  seedConfirmed,
} from "../../test/support/effect-fixtures.ts";
import { linkIn, oneClickUrl, recipients } from "../../test/support/outbox.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { effectContext, runEffectCommand } from "../effect-commands.ts";

const HOUR = 3600;

forEachBackend("welcome and reminder on %s", (backend, serverUrl) => {
  let smtp: SmtpCapture;
  let stack: TestStack;
  let publicDir: string;
  const identity = contentIdentity();
  const today = dayIn(identity.timeZone, new Date());

  /** Addresses the SMTP server answers with a temporary failure (451), as during an outage. */
  const deferred = new Set<string>();

  beforeAll(async () => {
    smtp = await createSmtpCapture({
      rejectRecipient: (address) =>
        deferred.has(address) ? "451 4.3.0 Temporary failure, please try again later" : undefined,
    });
    publicDir = mkdtempSync(path.join(tmpdir(), "welcome-public-"));
    publishEdition(publicDir, fixtureEdition(today));
    publishLatest(publicDir, today);
    stack = await startTestStack(backend, { SMTP_URL: smtp.url, PUBLIC_DIR: publicDir }, serverUrl);
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
    rmSync(publicDir, { recursive: true, force: true });
  });

  const mailsTo = (address: string): ParsedMail[] =>
    smtp.mails.filter((mail) => recipients(mail).includes(address));
  const signUp = async (address: string) => {
    expect((await stack.post("send-confirmation", { email: address })).status).toBe(200);
    await stack.drainMail();
  };
  const confirm = async (mail: ParsedMail) =>
    stack.post("confirm-subscription", { token: linkIn(mail, "confirm").searchParams.get("confirm") });

  describe("the reminder", () => {
    it("goes once to an address unconfirmed a day after its mail, with a fresh link that works", async () => {
      const address = "late@example.com";
      await signUp(address);
      const [first] = mailsTo(address);
      stack.advance(23 * HOUR);
      await stack.drainMail();
      expect(mailsTo(address)).toHaveLength(1);

      stack.advance(HOUR + 1);
      await stack.drainMail();
      const [, reminder] = mailsTo(address);
      expect(reminder.subject).toBe("Reminder: confirm your subscription to Effect of the Day");
      expect(reminder.text).toContain("This is our only reminder.");
      // The fresh link replaces the first mail's, which would have expired by now anyway.
      expect((await confirm(first)).status).toBe(404);
      expect((await confirm(reminder)).status).toBe(200);

      stack.advance(72 * HOUR);
      await stack.drainMail();
      // Confirmed by the reminder's link: then only the welcome mail.
      expect(mailsTo(address).map((mail) => mail.subject)).toEqual([
        "Confirm your subscription to Effect of the Day",
        "Reminder: confirm your subscription to Effect of the Day",
        `Welcome to Effect of the Day: Small & steady <${today}>`,
      ]);
    });

    it("is never a second one, also when the visitor asked for the mail again", async () => {
      const address = "twice@example.com";
      await signUp(address);
      stack.advance(2 * HOUR);
      await signUp(address); // a resend: a new mail, and the reminder counts from it
      stack.advance(23 * HOUR);
      await stack.drainMail();
      expect(mailsTo(address)).toHaveLength(2);
      stack.advance(HOUR + 1);
      await stack.drainMail();
      expect(mailsTo(address)).toHaveLength(3);
      stack.advance(2 * HOUR);
      await signUp(address); // after the reminder: a new link, but no second reminder
      stack.advance(30 * HOUR);
      await stack.drainMail();
      expect(mailsTo(address).map((mail) => (mail.subject ?? "").split(" ")[0])).toEqual([
        "Confirm",
        "Confirm",
        "Reminder:",
        "Confirm",
      ]);
    });

    it("is not sent to an address confirmed in time, and the purge takes an unanswered one as before", async () => {
      await signUp("prompt@example.com");
      expect((await confirm(mailsTo("prompt@example.com")[0])).status).toBe(200);
      await signUp("silent@example.com");
      stack.advance(25 * HOUR);
      await stack.drainMail();
      expect(mailsTo("prompt@example.com").map((mail) => (mail.subject ?? "").split(" ")[0])).not.toContain(
        "Reminder:",
      );
      expect(mailsTo("silent@example.com")).toHaveLength(2);

      stack.advance(7 * 24 * HOUR);
      await stack.server.backend.purge();
      const emails = (await stack.server.backend.admin.list()).map((row) => row.email);
      expect(emails).not.toContain("silent@example.com");
      expect(emails).toContain("prompt@example.com");
    });
  });

  describe("the reminder within the caps", () => {
    const firstWord = (mail: ParsedMail) => (mail.subject ?? "").split(" ")[0];
    /** Just after the next UTC midnight, so the day's caps are counted on one day. */
    const startOfNextUtcDay = () => {
      const ms = stack.now().getTime();
      stack.advance((86_400_000 - (ms % 86_400_000)) / 1000 + 60);
    };

    it("counts in the mailbox's daily cap: a+1@, a+2@ and a+3@ get three mails between them, one a reminder", async () => {
      const tags = ["a+1@tags.example", "a+2@tags.example", "a+3@tags.example", "A+4@tags.example"];
      const mailbox = () =>
        smtp.mails
          .filter((mail) => recipients(mail).some((address) => tags.includes(address)))
          .map((mail) => [recipients(mail)[0], firstWord(mail)]);
      startOfNextUtcDay();
      for (const address of tags.slice(0, 3)) {
        await signUp(address); // each after the mailbox's cooldown
        stack.advance(61);
      }
      stack.advance(25 * HOUR);
      await stack.drainMail();
      // CONFIRMATION_MAILS_PER_DAY is 3: two confirmations and the first signup's reminder.
      expect(mailbox()).toEqual([
        ["a+1@tags.example", "Confirm"],
        ["a+2@tags.example", "Confirm"],
        ["a+1@tags.example", "Reminder:"],
      ]);

      // A new day, a new confirmation, but no second reminder while the first one's signups may be pending.
      await signUp(tags[3]);
      stack.advance(25 * HOUR);
      await stack.drainMail();
      expect(mailbox().slice(3)).toEqual([["A+4@tags.example", "Confirm"]]);

      // Nothing else broke: each stays pending, and the purge takes them as any unconfirmed signup.
      const listed = async () =>
        (await stack.server.backend.admin.list())
          .filter((row) => tags.includes(row.email))
          .map((row) => [row.email, row.status]);
      expect(await listed()).toEqual(expect.arrayContaining(tags.map((address) => [address, "pending"])));
      stack.advance(8 * 24 * HOUR);
      await stack.drainMail();
      await stack.server.backend.purge();
      expect(await listed()).toEqual([]);
      expect(mailbox()).toHaveLength(4);
    });

    it("is counted once when a mailbox's addresses sign up at the same moment", async () => {
      const tags = ["b+1@tags.example", "b+2@tags.example", "b+3@tags.example"];
      startOfNextUtcDay();
      const answers = await Promise.all(tags.map((email) => stack.post("send-confirmation", { email })));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      await stack.drainMail();
      stack.advance(25 * HOUR);
      await stack.drainMail();
      const mails = smtp.mails.filter((mail) => recipients(mail).some((address) => tags.includes(address)));
      // The mailbox's cooldown lets one signup mail; that one is reminded, the others wait.
      expect(mails.map(firstWord)).toEqual(["Confirm", "Reminder:"]);
      expect(new Set(mails.map((mail) => recipients(mail)[0])).size).toBe(1);
    });

    it("still comes to a single signup, beside its confirmation", async () => {
      startOfNextUtcDay();
      await signUp("single@tags.example");
      stack.advance(25 * HOUR);
      await stack.drainMail();
      expect(mailsTo("single@tags.example").map(firstWord)).toEqual(["Confirm", "Reminder:"]);
    });
  });

  describe("the welcome mail", () => {
    const send = () =>
      runEffectCommand(
        { action: "send", date: today, retryUnknown: false },
        effectContext(
          { SITE_URL: "https://www.thepurposeeffect.example", SMTP_URL: smtp.url, MAIL_RATE_PER_SECOND: "0" },
          {
            db: stack.server.db,
            dataDir: publicDir,
            publicDir,
            log: { info() {}, warn() {}, error() {} },
            identity,
          },
        ),
      );

    it("brings a reader who confirms the latest Effect once, and the day's send does not mail it again", async () => {
      await seedConfirmed(stack.server.db, 3, 901);
      const address = "newreader@example.com";
      await signUp(address);
      expect((await confirm(mailsTo(address)[0])).status).toBe(200);
      await stack.drainMail();
      const [, welcome] = mailsTo(address);
      // The newsletter's name once: "Welcome to {newsletter}: {effect_title}".
      expect(welcome.subject).toBe(`Welcome to Effect of the Day: Small & steady <${today}>`);
      expect(welcome.text).toContain("Welcome to Effect of the Day! You're in.");
      expect(welcome.text).toContain("Show up for the people who count on you.");
      // Its own unsubscribe link, page and one-click alike.
      expect(linkIn(welcome, "unsubscribe").searchParams.get("unsubscribe")).toBe(
        oneClickUrl(welcome).searchParams.get("token"),
      );

      await stack.drainMail();
      await send();
      expect(mailsTo(address)).toHaveLength(2);
      for (const index of [901, 902, 903]) expect(mailsTo(readerAddress(index))).toHaveLength(1);
      const status = await runEffectCommand(
        { action: "status", date: today },
        effectContext(
          {},
          {
            db: stack.server.db,
            dataDir: publicDir,
            publicDir,
            log: { info() {}, warn() {}, error() {} },
            identity,
          },
        ),
      );
      // Everyone confirmed so far, the welcomed reader's delivery among them, each sent once.
      expect(status).toMatch(/^queued +0$/m);
      expect(status).toMatch(/^sent +\d+$/m);
    });

    it("waits out an SMTP failure and then goes once, recorded once", async () => {
      const address = "patient@example.com";
      await signUp(address);
      deferred.add(address);
      expect((await confirm(mailsTo(address)[0])).status).toBe(200);
      await stack.drainMail();
      expect(mailsTo(address)).toHaveLength(1);
      deferred.delete(address);
      stack.advance(5);
      await stack.drainMail();
      await stack.drainMail();
      expect(mailsTo(address).map((mail) => (mail.subject ?? "").split(" ")[0])).toEqual([
        "Confirm",
        "Welcome",
      ]);
      const deliveries = await stack.server.db.query<{ status: string }>(
        `select d.status from effect_deliveries d join subscribers s on s.id = d.subscriber_id where s.email = $1`,
        [address],
      );
      expect(deliveries).toEqual([{ status: "sent" }]);
      const [job] = await stack.server.db.query<{ status: string; attempts: number }>(
        `select status, attempts from mail_jobs where kind = 'welcome' and recipient = $1`,
        [address],
      );
      expect(job.status).toBe("sent");
      expect(Number(job.attempts)).toBeGreaterThanOrEqual(2);
    });

    it("goes to a reader who confirms after the day's send too, and a later send does not repeat it", async () => {
      const address = "afterwards@example.com";
      await signUp(address);
      expect((await confirm(mailsTo(address)[0])).status).toBe(200);
      await stack.drainMail();
      expect(mailsTo(address).map((mail) => (mail.subject ?? "").split(" ")[0])).toEqual([
        "Confirm",
        "Welcome",
      ]);
      await send();
      await stack.drainMail();
      expect(mailsTo(address)).toHaveLength(2);
    });
  });
});
