/**
 * An editor's words reach the subscriber: a copy of content/ whose newsletter.yaml `mails:` an
 * editor changed, checked as `npm run check:content` checks it, published by the build's own step
 * (writeEffectFiles: mail.json with its welcome, sender.json), and the local stack on PGlite,
 * started on that content, sending through a real SMTP server on loopback: the confirmation, then
 * after the click the welcome with the newest Effect; and a welcome kept waiting, never lost, while
 * the site still serves a mail.json built before the welcome was part of it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { contentProblems } from "../../scripts/check-content.ts";
import { readBrand, readMailCopy } from "../../src/content/read-brand.ts";
import type { EffectPages } from "../../src/content/schema.ts";
import { readYaml } from "../../src/content/yaml.ts";
import { writeEffectFiles } from "../../src/effects/effect-files.ts";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { linkIn, recipients } from "../../test/support/outbox.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

const ROOT = path.resolve(__dirname, "../..");

describe("an editor's change to the mails' words", () => {
  let root: string;
  let today: string;
  let smtp: SmtpCapture;
  let stack: TestStack;
  const contentDir = () => path.join(root, "content");

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "mail-copy-"));
    cpSync(path.join(ROOT, "content"), contentDir(), { recursive: true });
    const file = path.join(contentDir(), "newsletter.yaml");
    const edited = readFileSync(file, "utf8")
      .replace(
        'subject: "Confirm your subscription to {newsletter}"',
        'subject: "{brand} asks: one click for {newsletter}?"',
      )
      .replace(/^( {4}buttonLabel:) Confirm your subscription$/m, "$1 Yes, count me in")
      .replace(
        'subject: "Welcome to {newsletter}: {effect_title}"',
        'subject: "You are in! First up: {effect_title}"',
      )
      .replace(
        /^( {4}text:) >-\n {6}Welcome to \{newsletter\}![^\n]*\n[^\n]*\n/m,
        '$1 "Glad you joined {brand}. Start with {effect_title}."\n',
      );
    writeFileSync(file, edited);

    const brand = readBrand(contentDir());
    const texts = readYaml(
      readFileSync(path.join(contentDir(), "effect-pages.yaml"), "utf8"),
      "content/effect-pages.yaml",
    ) as EffectPages;
    today = dayIn(brand.timeZone, new Date());
    const publicDir = path.join(root, "public");
    await writeEffectFiles(publicDir, {
      published: [
        { date: today, file: `${today}.yaml`, title: "Protect the first hour", summary: "S.", body: "Body." },
      ],
      brand,
      texts,
      mails: readMailCopy(contentDir()),
      today,
    });
    smtp = await createSmtpCapture();
    stack = await startTestStack(
      "PGlite",
      { SMTP_URL: smtp.url, PUBLIC_DIR: publicDir },
      undefined,
      undefined,
      contentDir(),
    );
  });
  it("keeps a welcome waiting, not lost, while the site's mail.json has no welcome (built before it), and sends it after", async () => {
    const file = path.join(root, "public", "effects", today, "mail.json");
    const built = readFileSync(file, "utf8");
    const { welcome: _welcome, ...older } = JSON.parse(built) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify(older));
    const address = "early-reader@example.com";
    const mailsTo = () => smtp.mails.filter((mail) => recipients(mail).includes(address));
    expect((await stack.post("send-confirmation", { email: address })).status).toBe(200);
    await stack.drainMail();
    const token = linkIn(mailsTo()[0], "confirm").searchParams.get("confirm");
    expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
    await stack.drainMail();
    expect(mailsTo()).toHaveLength(1);
    const [job] = await stack.server.db.query<{ status: string; last_error: string }>(
      `select status, last_error from mail_jobs where kind = 'welcome' and recipient = $1`,
      [address],
    );
    expect(job).toEqual({
      status: "queued",
      last_error: expect.stringContaining("has no welcome: rebuild the site"),
    });

    writeFileSync(file, built); // the next build
    stack.advance(60);
    await stack.drainMail();
    expect(mailsTo().map((mail) => mail.subject)).toEqual([
      "The Purpose Effect asks: one click for Effect of the Day?",
      "You are in! First up: Protect the first hour",
    ]);
  });

  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("passes the content check, and shows in the confirmation and the welcome as sent", async () => {
    expect(contentProblems(root)).toEqual([]);
    const address = "editor-reader@example.com";
    expect((await stack.post("send-confirmation", { email: address })).status).toBe(200);
    await stack.drainMail();
    const mailsTo = () => smtp.mails.filter((mail) => recipients(mail).includes(address));
    const [confirmation] = mailsTo();
    expect(confirmation.subject).toBe("The Purpose Effect asks: one click for Effect of the Day?");
    expect(confirmation.text).toContain("Yes, count me in: ");
    expect(confirmation.html).toMatch(/<a href="[^"]+"[^>]*>Yes, count me in<\/a>/);

    const token = linkIn(confirmation, "confirm").searchParams.get("confirm");
    expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
    await stack.drainMail();
    const [, welcome] = mailsTo();
    expect(welcome.subject).toBe("You are in! First up: Protect the first hour");
    for (const part of [welcome.text, welcome.html]) {
      expect(part).toContain("Glad you joined The Purpose Effect. Start with Protect the first hour.");
    }
  });
});
