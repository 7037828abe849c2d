/**
 * Mail over SMTP to a real server on loopback (smtp-server, parsed with mailparser): the parts,
 * the list headers, working links, and delivery that survives the server being down.
 */
import type { ParsedMail } from "mailparser";
import { createServer, type Server, type Socket } from "node:net";
import { eventually } from "../../test/support/eventually.ts";
import { parseConfig } from "../../supabase/functions/_shared/config.ts";
import { confirmationMail } from "../../supabase/functions/_shared/mail/confirmation-mail.ts";
import { mailSettings } from "../../supabase/functions/_shared/mail/list-headers.ts";
import { createSmtpMailer } from "../../supabase/functions/_shared/mail/smtp.ts";
import { contentIdentity } from "../../test/support/effect-fixtures.ts";
import { HOSTILE_SENDER_NAMES, shownName } from "../../test/support/mailboxes.ts";
import { freePort } from "../../test/support/free-port.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { linkIn, oneClickUrl, rawHeader, recipients } from "../../test/support/outbox.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

describe("confirmation mail over SMTP", () => {
  let smtp: SmtpCapture;
  let stack: TestStack;
  let mail: ParsedMail;

  beforeAll(async () => {
    smtp = await createSmtpCapture();
    stack = await startTestStack("PGlite", {
      SMTP_URL: smtp.url,
      MAIL_FROM: "Effect of the Day <hello@thepurposeeffect.example>",
    });
    const response = await stack.post("send-confirmation", { email: "Reader@Example.COM" });
    expect(response.status).toBe(200);
    [mail] = await smtp.waitForMails(1);
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
  });

  it("goes to the address with its domain lower-cased, from MAIL_FROM", () => {
    expect(recipients(mail)).toEqual(["Reader@example.com"]);
    expect(mail.from?.text).toBe('"Effect of the Day" <hello@thepurposeeffect.example>');
    expect(mail.subject).toBe("Confirm your subscription to Effect of the Day");
  });

  it("has an HTML and a plain-text part with the same confirmation link", () => {
    const confirm = linkIn(mail, "confirm");
    expect(confirm.origin + confirm.pathname).toBe(`${stack.origin}/`);
    expect(mail.html).toContain(`href="${confirm.href}"`);
    // In words, in the brand's time zone (content/brand.yaml): "Wednesday, November 25 at 2:00 PM (Eastern Standard Time)".
    expect(mail.text).toMatch(
      /This link expires on \w+day, \w+ \d{1,2} at \d{1,2}:\d{2} [AP]M \(Eastern (Standard|Daylight) Time\)\./,
    );
    expect(mail.text).toContain("If it wasn't you who signed up, ignore this mail");
  });

  it("carries List-Id, List-Unsubscribe and the one-click header", () => {
    expect(rawHeader(mail, "List-Id")).toBe("Effect of the Day <effect-of-the-day.localhost>");
    expect(rawHeader(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(oneClickUrl(mail).href).toMatch(
      new RegExp(`^${stack.origin}/functions/v1/unsubscribe\\?token=[A-Za-z0-9_-]{43}$`),
    );
  });

  it("has links that confirm and then unsubscribe", async () => {
    const confirm = await stack.post("confirm-subscription", {
      token: linkIn(mail, "confirm").searchParams.get("confirm"),
    });
    expect(confirm.status).toBe(200);
    const target = oneClickUrl(mail);
    const unsubscribe = await fetch(`${stack.url}${target.pathname}${target.search}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(unsubscribe.status).toBe(200);
    expect(await stack.server.backend.admin.countByStatus()).toMatchObject({ unsubscribed: 1 });
  });
});

describe("the sender's name from the site (sender.json) over SMTP", () => {
  it("is one mailbox with our address, in the From header and the envelope, whatever the name", async () => {
    const smtp = await createSmtpCapture();
    const mailer = createSmtpMailer(smtp.url);
    try {
      // No MAIL_FROM and no BOUNCE_ADDRESS: the From is the newsletter's name at the site's host,
      // and the envelope sender is taken from it.
      const config = parseConfig({ SITE_URL: "https://thepurposeeffect.example" });
      for (const name of HOSTILE_SENDER_NAMES)
        await mailer.send(
          confirmationMail(mailSettings(config, { ...contentIdentity(), newsletterName: name }), {
            to: "ann@example.com",
            confirmToken: "c".repeat(43),
            unsubscribeToken: "u".repeat(43),
            expiresAt: new Date("2026-11-23T12:00:00Z"),
          }),
        );
      const mails = await smtp.waitForMails(HOSTILE_SENDER_NAMES.length);
      const address = "newsletter@thepurposeeffect.example";
      for (const [index, name] of HOSTILE_SENDER_NAMES.entries()) {
        expect(mails[index].envelope).toEqual({ from: address, to: ["ann@example.com"] });
        expect(mails[index].from?.value).toEqual([{ name: shownName(name), address }]);
        expect(rawHeader(mails[index], "Bcc")).toBeUndefined();
      }
    } finally {
      await mailer.close?.();
      await smtp.stop();
    }
  });
});

describe("an SMTP outage", () => {
  it("delays the mail, which is delivered once the server is back, exactly once", async () => {
    const smtp = await createSmtpCapture();
    await smtp.stop();
    const stack = await startTestStack("PGlite", { SMTP_URL: smtp.url });
    try {
      const response = await stack.post("send-confirmation", { email: "patient@example.com" });
      expect(response.status).toBe(200);
      await eventually(() => stack.logs.some((line) => line.includes("failed (attempt 2)")), {
        what: "the second failed attempt in the log",
      });
      expect(stack.logs.join("\n")).toMatch(
        /mail to p•••@example\.com failed \(attempt 1\), retrying in 0\.2s/,
      );

      await smtp.start();
      const [mail] = await smtp.waitForMails(1);
      expect(recipients(mail)).toEqual(["patient@example.com"]);
      await stack.drainMail();
      expect(await stack.mailJobsTo("patient@example.com")).toEqual(["sent"]);
      expect(smtp.mails).toHaveLength(1);
    } finally {
      await stack.close();
      await smtp.stop();
    }
  });

  it("sends only the newest mail when the visitor asked again during the outage, and its link works", async () => {
    const smtp = await createSmtpCapture();
    await smtp.stop();
    const stack = await startTestStack("PGlite", { SMTP_URL: smtp.url });
    try {
      await stack.post("send-confirmation", { email: "twice@example.com" });
      stack.advance(61);
      await stack.post("send-confirmation", { email: "twice@example.com" });
      await smtp.start();
      const [mail] = await smtp.waitForMails(1);
      await stack.drainMail();
      // The first mail's link stopped working when the second was asked for: it is never sent.
      expect(await stack.mailJobsTo("twice@example.com")).toEqual(["abandoned", "sent"]);
      expect(smtp.mails).toHaveLength(1);
      const token = linkIn(mail, "confirm").searchParams.get("confirm");
      expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
    } finally {
      await stack.close();
      await smtp.stop();
    }
  });

  it("keeps the queued mail across a restart of the stack", async () => {
    const smtp = await createSmtpCapture();
    await smtp.stop();
    const stack = await startTestStack("PGlite", { SMTP_URL: smtp.url });
    try {
      await stack.post("send-confirmation", { email: "restart@example.com" });
      // The first attempt has failed (no SMTP server) before the stack stops.
      await eventually(() => stack.logs.some((line) => line.includes("failed (attempt 1)")), {
        what: "the first failed attempt in the log",
      });
      expect(await stack.mailJobsTo("restart@example.com")).toEqual(["queued"]);
      await stack.restart();
      await smtp.start();
      const [mail] = await smtp.waitForMails(1);
      expect(recipients(mail)).toEqual(["restart@example.com"]);
    } finally {
      await stack.close();
      await smtp.stop();
    }
  });
});

describe("SMTP with implicit TLS (port 465 style, as on Supabase)", () => {
  it("delivers over smtps://", async () => {
    const smtp = await createSmtpCapture({ secure: true });
    const stack = await startTestStack("PGlite", { SMTP_URL: smtp.url });
    try {
      await stack.post("send-confirmation", { email: "secure@example.com" });
      const [mail] = await smtp.waitForMails(1);
      expect(recipients(mail)).toEqual(["secure@example.com"]);
      expect(stack.logs.join("\n")).toContain("(TLS)");
    } finally {
      await stack.close();
      await smtp.stop();
    }
  });
});

describe("an SMTP server that accepts the connection and then says nothing", () => {
  let silent: Server;
  let port: number;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    port = await freePort();
    silent = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(port, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  const message = {
    from: { name: "", address: "a@example.com" },
    to: "b@example.com",
    subject: "s",
    text: "t",
    html: "<p>t</p>",
    headers: {},
  };
  it("gives up after the mailer's own timeouts, so the job is retried instead of blocking the queue", async () => {
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${port}`, {
      timeouts: { connectionTimeout: 300, greetingTimeout: 300, socketTimeout: 300 },
    });
    const started = Date.now();
    await expect(mailer.send(message)).rejects.toThrow(/greeting|timeout/i);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("lets a timeout in SMTP_URL's query win over the defaults", async () => {
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${port}/?greetingTimeout=300`);
    const started = Date.now();
    await expect(mailer.send(message)).rejects.toThrow(/greeting|timeout/i);
    // The default would wait 10 s.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
