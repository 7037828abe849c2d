/**
 * A permanent refusal (`550 5.1.1 <address>`) against a real SMTP server on loopback: tried once,
 * not all day; the other addresses unaffected; and the refused address never in the log.
 */
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

describe("a recipient the SMTP server refuses for good", () => {
  let smtp: SmtpCapture;
  let stack: TestStack;
  const attempts: string[] = [];

  beforeAll(async () => {
    smtp = await createSmtpCapture({
      rejectRecipient: (address) => {
        if (!address.startsWith("Jane.Doe@")) return undefined;
        attempts.push(address);
        return `550 5.1.1 <${address}>: Recipient address rejected: User unknown`;
      },
    });
    // Retries every 0.2 s at first: a temporary failure would be tried many times below.
    stack = await startTestStack("PGlite", { SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
  });

  it("is tried once, while the other addresses get their mail", async () => {
    expect((await stack.post("send-confirmation", { email: "Jane.Doe@example.com" })).status).toBe(200);
    expect((await stack.post("send-confirmation", { email: "reader@example.com" })).status).toBe(200);
    const [mail] = await smtp.waitForMails(1);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : "").toBe("reader@example.com");
    await stack.drainMail();
    // Refused for good: abandoned, not queued for a retry.
    expect(await stack.mailJobsTo("Jane.Doe@example.com")).toEqual(["abandoned"]);
    expect(attempts).toEqual(["Jane.Doe@example.com"]);
    expect(smtp.mails).toHaveLength(1);
  });

  it("leaves the address, provider's error text included, out of the log", () => {
    const log = stack.logs.join("\n");
    expect(log).toContain("550 5.1.1 <J•••@example.com>");
    expect(log).not.toMatch(/jane\.doe@example\.com/i);
    expect(log).not.toMatch(/reader@example\.com/i);
  });
});
