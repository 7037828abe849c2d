import { classifySendError } from "../../effect-sending/delivery-decisions.ts";
import { HOSTILE_SENDER_NAMES, mailboxesOf, shownName } from "../../../../../test/support/mailboxes.ts";
import { startResendStandIn, type ResendStandIn } from "../../../../../test/support/resend-stand-in.ts";
import { mailbox } from "../mailbox.ts";
import type { MailMessage } from "../mailer.ts";
import { createResendMailer, resendFailure } from "../resend.ts";

const message = (to: string, key?: string): MailMessage => ({
  from: { name: "The Purpose Effect", address: "effect@thepurposeeffect.example" },
  to,
  subject: "Effect of the Day",
  text: "Today's Effect",
  html: "<p>Today's Effect</p>",
  headers: {
    "List-Unsubscribe": `<https://functions.example/unsubscribe?token=${to}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "List-Id": "Effect of the Day <effect.thepurposeeffect.example>",
  },
  idempotencyKey: key,
});

/** No real waiting in these tests: the waits asked for are recorded instead. */
const noWait = (waits: number[]) => ({
  sleep: async (ms: number) => {
    waits.push(ms);
  },
});

describe("the Resend transport", () => {
  let resend: ResendStandIn;
  afterEach(async () => {
    await resend.close();
  });

  const mailer = (overrides: Partial<Parameters<typeof createResendMailer>[0]> = {}) =>
    createResendMailer({ apiKey: resend.apiKey, apiUrl: resend.url, requestsPerSecond: 0, ...overrides });

  it("sends a single mail with its list headers and its idempotency key", async () => {
    resend = await startResendStandIn();
    await mailer().send(message("ann@example.com", "effect-1"));
    expect(resend.mails).toEqual([
      expect.objectContaining({
        to: ["ann@example.com"],
        subject: "Effect of the Day",
        text: "Today's Effect",
        idempotencyKey: "effect-1",
        headers: expect.objectContaining({
          "List-Unsubscribe": "<https://functions.example/unsubscribe?token=ann@example.com>",
          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
          "List-Id": "Effect of the Day <effect.thepurposeeffect.example>",
        }),
      }),
    ]);
  });

  it("sends a batch of 100 in one request, each mail keeping its own headers", async () => {
    resend = await startResendStandIn();
    const sender = mailer();
    expect(sender.batchSize).toBe(100);
    const addresses = Array.from({ length: 100 }, (_, index) => `reader${index}@example.com`);
    await sender.sendBatch?.(
      addresses.map((address) => message(address)),
      "batch-1",
    );
    expect(resend.requests).toEqual([
      { path: "/emails/batch", idempotencyKey: "batch-1", status: 200, mails: 100, at: expect.any(Number) },
    ]);
    for (const address of addresses) expect(resend.received(address)).toBe(1);
    expect(resend.mails[42].headers["List-Unsubscribe"]).toBe(
      "<https://functions.example/unsubscribe?token=reader42@example.com>",
    );
  });

  it("writes any sender name as one mailbox with our address", async () => {
    resend = await startResendStandIn();
    const address = "newsletter@thepurposeeffect.example";
    await mailer().sendBatch?.(
      HOSTILE_SENDER_NAMES.map((name) => ({ ...message("ann@example.com"), from: mailbox(name, address) })),
      "names",
    );
    expect(resend.mails).toHaveLength(HOSTILE_SENDER_NAMES.length);
    for (const [index, name] of HOSTILE_SENDER_NAMES.entries())
      expect(await mailboxesOf(resend.mails[index].from)).toEqual([{ name: shownName(name), address }]);
  });

  it("refuses a batch over Resend's 100 before sending any of it", async () => {
    resend = await startResendStandIn();
    const messages = Array.from({ length: 101 }, (_, index) => message(`r${index}@example.com`));
    await expect(mailer().sendBatch?.(messages, "too-many")).rejects.toThrow(/at most 100/);
    expect(resend.requests).toHaveLength(0);
  });

  it("asks again after a lost answer with the same key and bytes: the recipient gets the mail once", async () => {
    resend = await startResendStandIn();
    resend.dropAnswers(1);
    const waits: number[] = [];
    await mailer({ retry: noWait(waits) }).send(message("bob@example.com", "effect-2"));
    expect(resend.requests.map(({ idempotencyKey, status }) => ({ idempotencyKey, status }))).toEqual([
      { idempotencyKey: "effect-2", status: "dropped" },
      { idempotencyKey: "effect-2", status: 200 },
    ]);
    expect(resend.received("bob@example.com")).toBe(1);
  });

  it("a later send of the same message (the sender's retry) is a replay, not a second mail", async () => {
    resend = await startResendStandIn();
    resend.dropAnswers(1);
    const once = mailer({ retry: { attempts: 1 } });
    const error = await once.send(message("cy@example.com", "effect-3")).catch((failure: unknown) => failure);
    expect(classifySendError(error).kind).toBe("temporary");
    await once.send(message("cy@example.com", "effect-3"));
    expect(resend.received("cy@example.com")).toBe(1);
  });

  it("waits out a 429 for the retry-after Resend names, then sends", async () => {
    resend = await startResendStandIn();
    resend.failNext(1, 429, "rate_limit_exceeded");
    const waits: number[] = [];
    await mailer({ retry: noWait(waits) }).send(message("dee@example.com", "effect-4"));
    expect(resend.received("dee@example.com")).toBe(1);
    expect(waits).toHaveLength(1);
  });

  it("spreads its requests at the account's rate, and every mail arrives once", async () => {
    resend = await startResendStandIn({ requestsPerSecond: 2 });
    const sender = mailer({ requestsPerSecond: 2 });
    const started = Date.now();
    await Promise.all(["a", "b", "c", "d"].map((name) => sender.send(message(`${name}@example.com`, name))));
    // 2 a second: the fourth request starts 1.5 s after the first (a 429 at the window's edge is waited out).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    for (const name of ["a", "b", "c", "d"]) expect(resend.received(`${name}@example.com`)).toBe(1);
  });

  it("gives a 429 back as temporary when the wait asked for is longer than it waits", async () => {
    resend = await startResendStandIn({ requestsPerSecond: 1 });
    const sender = mailer({ retry: { maxWaitMs: 10 } });
    await sender.send(message("e@example.com", "e"));
    const error = await sender.send(message("f@example.com", "f")).catch((failure: unknown) => failure);
    expect(classifySendError(error)).toEqual({
      kind: "temporary",
      reason: expect.stringMatching(/Resend 429 rate_limit_exceeded.*asked to wait 1s/),
    });
    expect(resend.received("f@example.com")).toBe(0);
  });

  it("reads a refused recipient as permanent, and says why", async () => {
    resend = await startResendStandIn({ rejectRecipient: (address) => address.startsWith("nobody") });
    const error = await mailer()
      .send(message("nobody@example.com", "g"))
      .catch((failure: unknown) => failure);
    expect(classifySendError(error)).toEqual({
      kind: "permanent",
      reason: "Resend 422 validation_error: Invalid `to` field: nobody@example.com",
    });
  });

  it("reads a wrong API key as temporary: it is about the account, not the address", async () => {
    resend = await startResendStandIn();
    const error = await mailer({ apiKey: "re_wrong" })
      .send(message("h@example.com", "h"))
      .catch((failure: unknown) => failure);
    expect(classifySendError(error)).toEqual({
      kind: "temporary",
      reason: "Resend 403 invalid_api_key: API key is invalid.",
    });
  });

  it("is refused by Resend when a key comes back with another body, and reads it as permanent", async () => {
    resend = await startResendStandIn();
    await mailer().send(message("i@example.com", "same-key"));
    const error = await mailer()
      .send({ ...message("i@example.com", "same-key"), subject: "Another subject" })
      .catch((failure: unknown) => failure);
    expect(classifySendError(error)).toEqual({
      kind: "permanent",
      reason: expect.stringContaining("Resend 409 invalid_idempotent_request"),
    });
    expect(resend.received("i@example.com")).toBe(1);
  });

  it("refuses a plain-http RESEND_API_URL that is not this machine", () => {
    expect(() =>
      createResendMailer({ apiKey: "re_x", apiUrl: "http://example.com", requestsPerSecond: 2 }),
    ).toThrow("RESEND_API_URL must be https:// (plain http:// only to 127.0.0.1 or localhost, a stand-in)");
    expect(() =>
      createResendMailer({ apiKey: "re_x", apiUrl: "https://api.resend.com", requestsPerSecond: 2 }),
    ).not.toThrow();
    resend = { close: async () => undefined } as ResendStandIn;
  });
});

describe("Resend's error answers", () => {
  it.each([
    [422, "validation_error", "permanent", false],
    [400, "validation_error", "permanent", false],
    [409, "invalid_idempotent_request", "permanent", false],
    [409, "concurrent_idempotent_requests", "temporary", true],
    [429, "rate_limit_exceeded", "temporary", true],
    [429, "daily_quota_exceeded", "temporary", false],
    [401, "missing_api_key", "temporary", false],
    [403, "validation_error", "temporary", false],
    [422, "invalid_from_address", "temporary", false],
    [500, "internal_server_error", "temporary", true],
    [503, "", "temporary", true],
  ] as const)("%i %s is %s (asked again at once: %s)", (status, name, kind, retry) => {
    const failure = resendFailure(status, { statusCode: status, name, message: "..." });
    expect([classifySendError(failure.error).kind, failure.retry]).toEqual([kind, retry]);
  });
});
