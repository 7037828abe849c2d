/**
 * The welcome mail and the one reminder, through the local stack on PGlite and on PostgreSQL with
 * a real SMTP server on loopback: a reader who confirms gets the latest Effect once, and the day's
 * send does not mail it to them again; an address still unconfirmed a day after its mail gets one
 * reminder with a fresh link, never a second, and the purge then takes it as before.
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
