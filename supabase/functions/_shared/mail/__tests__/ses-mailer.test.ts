import { classifySendError } from "../../effect-sending/delivery-decisions.ts";
import { HOSTILE_SENDER_NAMES, mailboxesOf, shownName } from "../../../../../test/support/mailboxes.ts";
import { startSesStandIn, type SesStandIn } from "../../../../../test/support/ses-stand-in.ts";
import { mailbox } from "../mailbox.ts";
import type { MailMessage } from "../mailer.ts";
import { createSesMailer, sesFailure } from "../ses-mailer.ts";

const message = (to: string): MailMessage => ({
  from: { name: "The Purpose Effect", address: "effect@thepurposeeffect.example" },
  to,
  subject: "Effect of the Day",
  text: "Today's Effect",
  html: "<p>Today's Effect</p>",
  headers: {
    "List-Unsubscribe": `<https://functions.example/unsubscribe?token=abc>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "List-Id": "Effect of the Day <effect.thepurposeeffect.example>",
  },
  idempotencyKey: "effect-1",
});

describe("the SES transport", () => {
  let ses: SesStandIn;
  afterEach(async () => {
    await ses.close();
  });

  const mailer = (overrides: Partial<Parameters<typeof createSesMailer>[0]> = {}) =>
    createSesMailer({
      region: ses.region,
      accessKeyId: ses.accessKeyId,
      secretAccessKey: ses.secretAccessKey,
      apiUrl: ses.url,
      ...overrides,
    });

  it("sends the MIME every transport builds, signed, with every list header", async () => {
    ses = await startSesStandIn();
    await mailer().send(message("ann@example.com"));
    expect(ses.statuses).toEqual([200]);
    const [mail] = ses.mails;
    expect(mail.to).toEqual(["ann@example.com"]);
    expect(mail.parsed.subject).toBe("Effect of the Day");
    expect(mail.parsed.text?.trim()).toBe("Today's Effect");
    expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    expect(mail.raw).toMatch(/^List-Unsubscribe: <https:\/\/functions\.example\/unsubscribe\?token=abc>\r$/m);
    expect(mail.raw).toMatch(/^List-Id: Effect of the Day <effect\.thepurposeeffect\.example>\r$/im);
  });

  it("writes any sender name as one mailbox with our address, in FromEmailAddress and the MIME", async () => {
    ses = await startSesStandIn();
    const address = "newsletter@thepurposeeffect.example";
    const sender = mailer();
    for (const name of HOSTILE_SENDER_NAMES)
      await sender.send({ ...message("ann@example.com"), from: mailbox(name, address) });
    expect(ses.statuses).toEqual(HOSTILE_SENDER_NAMES.map(() => 200));
    for (const [index, name] of HOSTILE_SENDER_NAMES.entries()) {
      const expected = [{ name: shownName(name), address }];
      expect(await mailboxesOf(ses.mails[index].from)).toEqual(expected);
      expect(ses.mails[index].parsed.from?.value).toEqual(expected);
    }
  });

  it("is refused with a wrong secret (the stand-in checks the signature)", async () => {
    ses = await startSesStandIn();
    const error = await mailer({ secretAccessKey: "wrong" })
      .send(message("bob@example.com"))
      .catch((failure: unknown) => failure);
    expect(classifySendError(error)).toEqual({
      kind: "temporary",
      reason: expect.stringContaining("SES 403 SignatureDoesNotMatch"),
    });
    expect(ses.mails).toHaveLength(0);
  });

  it("waits out throttling, then sends once", async () => {
    ses = await startSesStandIn();
    ses.failNext(2, 429, "TooManyRequestsException");
    const waits: number[] = [];
    await mailer({ retry: { sleep: async (ms) => void waits.push(ms) } }).send(message("cy@example.com"));
    expect(ses.statuses).toEqual([429, 429, 200]);
    expect(waits).toEqual([500, 1000]);
    expect(ses.received("cy@example.com")).toBe(1);
  });

  it("reads a rejected message as permanent", async () => {
    ses = await startSesStandIn({ rejectRecipient: (address) => address.startsWith("nobody") });
    const error = await mailer()
      .send(message("nobody@example.com"))
      .catch((failure: unknown) => failure);
    expect(classifySendError(error)).toEqual({
      kind: "permanent",
      reason: "SES 400 MessageRejected: Email address is not verified: nobody@example.com",
    });
  });

  it("refuses a plain-http SES_API_URL that is not this machine, and a malformed region", () => {
    ses = { close: async () => undefined } as SesStandIn;
    const options = { region: "eu-west-1", accessKeyId: "AKID", secretAccessKey: "secret" };
    expect(() => createSesMailer({ ...options, apiUrl: "http://example.com" })).toThrow(
      /SES_API_URL must be https:\/\//,
    );
    expect(() => createSesMailer({ ...options, region: "Ireland" })).toThrow(
      /SES_REGION must be an AWS region/,
    );
    expect(createSesMailer(options).description).toBe("SES eu-west-1");
  });
});

describe("SES's error answers", () => {
  it.each([
    [429, "TooManyRequestsException", "temporary", true],
    [400, "ThrottlingException", "temporary", true],
    [500, "InternalServiceErrorException", "temporary", true],
    [400, "MessageRejected", "permanent", false],
    [400, "BadRequestException", "permanent", false],
    [400, "AccountSuspendedException", "temporary", false],
    [400, "SendingPausedException", "temporary", false],
    [400, "MailFromDomainNotVerifiedException", "temporary", false],
    [403, "SignatureDoesNotMatch", "temporary", false],
  ] as const)("%i %s is %s (asked again at once: %s)", (status, type, kind, retry) => {
    const failure = sesFailure(status, type, "...");
    expect([classifySendError(failure.error).kind, failure.retry]).toEqual([kind, retry]);
  });
});
