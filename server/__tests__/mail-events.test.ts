/**
 * Bounces and complaints from the mail provider, posted to the mail-events function of the local
 * stack on PGlite and on PostgreSQL, each source signed as its provider signs it: the signed ones
 * suppress or unsubscribe, the forged, stale, replayed and unsigned ones change nothing, and the
 * next Effect (to a real SMTP server on loopback) skips exactly the readers they named.
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { createAdminQueries } from "../../supabase/functions/_shared/subscriptions/admin-queries.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import {
  contentIdentity,
  fixtureEdition,
  publishEdition,
  readerAddress,
  seedConfirmed,
} from "../../test/support/effect-fixtures.ts";
import {
  arfMail,
  bounceAddressOf,
  CERT_URL,
  DSN_SECRET,
  dsnMail,
  type EventRequest,
  MAIL_EVENTS_ENV,
  makeSigningKey,
  resendBounce,
  resendComplaint,
  resendEvent,
  RESEND_SECRET,
  sesBounce,
  sesComplaint,
  snsFetch,
  snsMessage,
  TOPIC_ARN,
} from "../../test/support/mail-events.ts";
import { linkIn, recipients } from "../../test/support/outbox.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { effectContext, runEffectCommand } from "../effect-commands.ts";

const key = makeSigningKey();

forEachBackend("mail events on %s", (backend, serverUrl) => {
  let smtp: SmtpCapture;
  let stack: TestStack;
  const sns = snsFetch(key);

  beforeAll(async () => {
    smtp = await createSmtpCapture();
    stack = await startTestStack(backend, { ...MAIL_EVENTS_ENV, SMTP_URL: smtp.url }, serverUrl, sns.fetch);
    await seedConfirmed(stack.server.db, 30);
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
  });

  const post = (source: string, request: EventRequest, method = "POST") =>
    fetch(`${stack.url}/functions/v1/mail-events/${source}`, {
      method,
      headers: request.headers,
      body: method === "POST" ? request.body : undefined,
    });
  const reader = async (index: number) => {
    const [row] = await stack.server.db.query<{
      status: string;
      suppressed: boolean;
      unsubscribe_reason: string | null;
      complained: boolean;
    }>(
      `select status, undeliverable_at is not null as suppressed, unsubscribe_reason, complained_at is not null as complained
       from subscribers where email = $1`,
      [readerAddress(index)],
    );
    return row;
  };
  const eventCount = async () =>
    Number((await stack.server.db.query<{ n: number }>(`select count(*)::int as n from mail_events`))[0].n);
  const untouched = { status: "confirmed", suppressed: false, unsubscribe_reason: null, complained: false };

  describe("from Resend", () => {
    it("suppresses a permanently bounced address at once, and the same event again changes nothing", async () => {
      const event = await resendEvent(resendBounce(readerAddress(1)));
      const first = await post("resend", event);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ received: [{ kind: "bounce", effect: "suppressed" }] });
      expect(await reader(1)).toMatchObject({ status: "confirmed", suppressed: true });
      const events = await eventCount();
      const again = await post("resend", event);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ received: [{ kind: "bounce", effect: "duplicate" }] });
      expect(await eventCount()).toBe(events);
    });

    it("unsubscribes a reader who complained, the consent record saying so", async () => {
      const answer = await post("resend", await resendEvent(resendComplaint(readerAddress(2))));
      expect(await answer.json()).toEqual({ received: [{ kind: "complaint", effect: "unsubscribed" }] });
      expect(await reader(2)).toMatchObject({
        status: "unsubscribed",
        unsubscribe_reason: "complaint",
        complained: true,
      });
    });

    it("acknowledges the event types the list does not need, and changes nothing", async () => {
      const delivered = {
        type: "email.delivered",
        created_at: new Date().toISOString(),
        data: { to: [readerAddress(3)] },
      };
      const answer = await post("resend", await resendEvent(delivered));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ received: [], ignored: "email.delivered" });
      expect(await reader(3)).toEqual(untouched);
    });

    it("refuses an unsigned, forged, stale or foreign-signed event with a 401, and changes nothing", async () => {
      const events = await eventCount();
      const signed = await resendEvent(resendBounce(readerAddress(3)));
      const { "svix-signature": _signature, ...unsigned } = signed.headers;
      const forged = { ...signed, body: signed.body.replace(readerAddress(3), readerAddress(4)) };
      const stale = await resendEvent(resendBounce(readerAddress(3)), {
        at: new Date(Date.now() - 6 * 60_000),
      });
      const future = await resendEvent(resendBounce(readerAddress(3)), {
        at: new Date(Date.now() + 6 * 60_000),
      });
      const foreign = await resendEvent(resendBounce(readerAddress(3)), {
        secret: `whsec_${Buffer.from("somebody else's secret, 32 bytes").toString("base64")}`,
      });
      const answers = await Promise.all(
        [{ ...signed, headers: unsigned }, forged, stale, future, foreign].map((request) =>
          post("resend", request),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401]);
      expect(
        await Promise.all(
          answers.map(async (answer) => ((await answer.json()) as { error: { code: string } }).error.code),
        ),
      ).toEqual([
        "invalid_signature",
        "invalid_signature",
        "stale_event",
        "stale_event",
        "invalid_signature",
      ]);
      expect(await reader(3)).toEqual(untouched);
      expect(await reader(4)).toEqual(untouched);
      expect(await eventCount()).toBe(events);
    });

    it("takes Standard Webhooks' own header names (webhook-id, -timestamp, -signature), signed as the spec says", async () => {
      const id = "msg_standard_webhooks_1";
      const timestamp = String(Math.floor(Date.now() / 1000));
      // A reader outside the 30 the last test counts.
      await seedConfirmed(stack.server.db, 1, 31);
      const body = JSON.stringify(resendBounce(readerAddress(31)));
      const key = Buffer.from(RESEND_SECRET.slice("whsec_".length), "base64");
      const signature = `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": timestamp,
        "content-type": "application/json",
      };
      const unparsable = await post("resend", {
        headers: { ...headers, "webhook-signature": "v1,%%%" },
        body,
      });
      expect(unparsable.status).toBe(401);
      expect(await reader(31)).toEqual(untouched);
      const answer = await post("resend", { headers: { ...headers, "webhook-signature": signature }, body });
      expect(await answer.json()).toEqual({ received: [{ kind: "bounce", effect: "suppressed" }] });
      expect(await reader(31)).toMatchObject({ suppressed: true });
    });

    it("suppresses after temporary bounces on three different days in a row, and starts over after a gap", async () => {
      const onDay = async (index: number, day: number, id: string) => {
        const payload = {
          ...resendBounce(readerAddress(index), "Transient"),
          created_at: `2026-11-${day}T08:00:00Z`,
        };
        return (
          (await (await post("resend", await resendEvent(payload, { id }))).json()) as {
            received: { effect: string }[];
          }
        ).received[0].effect;
      };
      expect(await onDay(5, 10, "t1")).toBe("counted");
      expect(await onDay(5, 10, "t2")).toBe("counted"); // the same day again
      expect(await onDay(5, 11, "t3")).toBe("counted");
      expect((await reader(5)).suppressed).toBe(false);
      expect(await onDay(5, 12, "t4")).toBe("suppressed");
      expect((await reader(5)).suppressed).toBe(true);

      expect(await onDay(6, 10, "g1")).toBe("counted");
      expect(await onDay(6, 12, "g2")).toBe("counted"); // a day without: the count starts over
      expect(await onDay(6, 13, "g3")).toBe("counted");
      expect((await reader(6)).suppressed).toBe(false);
    });
  });

  describe("from Amazon SES through SNS", () => {
    it("confirms the topic's subscription by fetching its SubscribeURL", async () => {
      const subscribeUrl = `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC_ARN}&Token=abc`;
      const answer = await post(
        "ses",
        snsMessage(key, "SubscriptionConfirmation", {
          Message: "You have chosen to subscribe to the topic.",
          SubscribeURL: subscribeUrl,
          Token: "abc",
        }),
      );
      expect(answer.status).toBe(200);
      expect(sns.requested).toContain(subscribeUrl);
    });

    it("suppresses a permanent bounce, unsubscribes a complaint, and counts a transient bounce", async () => {
      const answers = await Promise.all([
        post("ses", snsMessage(key, "Notification", { Message: sesBounce(readerAddress(7)) })),
        post("ses", snsMessage(key, "Notification", { Message: sesComplaint(readerAddress(8)) })),
        post("ses", snsMessage(key, "Notification", { Message: sesBounce(readerAddress(9), "Transient") })),
      ]);
      expect(await Promise.all(answers.map((answer) => answer.json()))).toEqual([
        { received: [{ kind: "bounce", effect: "suppressed" }] },
        { received: [{ kind: "complaint", effect: "unsubscribed" }] },
        { received: [{ kind: "soft_bounce", effect: "counted" }] },
      ]);
      expect(await reader(7)).toMatchObject({ suppressed: true });
      expect(await reader(8)).toMatchObject({ status: "unsubscribed", unsubscribe_reason: "complaint" });
      expect(await reader(9)).toMatchObject({ status: "confirmed", suppressed: false });
    });

    it("takes the provider's own verdict: Permanent suppresses whatever its code, Transient is counted whatever its code, content rejected is the sender's", async () => {
      const full = "smtp; 552 5.2.2 The email account that you tried to reach is over quota";
      const policy = "smtp; 550 5.7.1 Message rejected due to local policy";
      // Readers of their own (41 to 45), so the counts of the Effect below stay those of the others.
      await seedConfirmed(stack.server.db, 5, 41);
      const contentRejected = JSON.parse(
        sesBounce(readerAddress(45), "Transient", "5.6.0", "smtp; 554 5.6.0 rejected"),
      ) as {
        bounce: { bounceSubType: string };
      };
      contentRejected.bounce.bounceSubType = "ContentRejected";
      const answers = await Promise.all([
        post(
          "ses",
          snsMessage(key, "Notification", {
            Message: sesBounce(readerAddress(41), "Permanent", "5.2.2", full),
          }),
        ),
        post(
          "ses",
          snsMessage(key, "Notification", {
            Message: sesBounce(readerAddress(42), "Permanent", "5.7.1", policy),
          }),
        ),
        post(
          "resend",
          await resendEvent(resendBounce(readerAddress(43), "Permanent", "552 5.2.2 Mailbox full")),
        ),
        post(
          "resend",
          await resendEvent(resendBounce(readerAddress(44), "Transient", "550 5.1.1 user unknown")),
        ),
        post("ses", snsMessage(key, "Notification", { Message: JSON.stringify(contentRejected) })),
      ]);
      expect(await Promise.all(answers.map((answer) => answer.json()))).toEqual([
        { received: [{ kind: "bounce", effect: "suppressed" }] },
        { received: [{ kind: "bounce", effect: "suppressed" }] },
        { received: [{ kind: "bounce", effect: "suppressed" }] },
        { received: [{ kind: "soft_bounce", effect: "counted" }] },
        { received: [{ kind: "sender_refusal", effect: "counted" }] },
      ]);
      for (const index of [41, 42, 43]) expect(await reader(index)).toMatchObject({ suppressed: true });
      for (const index of [44, 45]) expect(await reader(index)).toEqual(untouched);
    });

    it("changes nothing when SNS delivers the same message again", async () => {
      const message = snsMessage(key, "Notification", { Message: sesBounce(readerAddress(16), "Transient") });
      expect(await (await post("ses", message)).json()).toEqual({
        received: [{ kind: "soft_bounce", effect: "counted" }],
      });
      const events = await eventCount();
      expect(await (await post("ses", message)).json()).toEqual({
        received: [{ kind: "soft_bounce", effect: "duplicate" }],
      });
      expect(await eventCount()).toBe(events);
    });

    it("refuses a stranger's topic, a forged or stale message and a certificate off SNS's hosts, fetching nothing for them", async () => {
      const events = await eventCount();
      const fetched = sns.requested.length;
      const stranger = makeSigningKey();
      const bounce = (options: Parameters<typeof snsMessage>[3] = {}, signer = key) =>
        post("ses", snsMessage(signer, "Notification", { Message: sesBounce(readerAddress(10)) }, options));
      const good = snsMessage(key, "Notification", { Message: sesBounce(readerAddress(10)) });
      const answers = await Promise.all([
        bounce({ topic: "arn:aws:sns:eu-west-1:999999999999:theirs" }),
        post("ses", { ...good, body: good.body.replace(readerAddress(10), readerAddress(11)) }),
        bounce({}, stranger),
        bounce({ at: new Date(Date.now() - 10 * 60_000) }),
        bounce({ certUrl: "https://sns.evil.example/cert.pem" }),
        bounce({ certUrl: CERT_URL.replace("https:", "http:") }),
        post("ses", { ...good, body: JSON.stringify({ ...JSON.parse(good.body), Signature: undefined }) }),
        // An S3 bucket called "sns", another region than the topic's, SHA1, a signature that is no base64.
        bounce({ certUrl: "https://sns.s3.amazonaws.com/SimpleNotificationService-x.pem" }),
        bounce({ certUrl: CERT_URL.replace("eu-west-1", "us-east-1") }),
        bounce({ version: "1" }),
        post("ses", {
          ...good,
          body: JSON.stringify({ ...JSON.parse(good.body), Signature: "no base64 here!" }),
        }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([
        403, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401,
      ]);
      expect(await reader(10)).toEqual(untouched);
      expect(await reader(11)).toEqual(untouched);
      expect(await eventCount()).toBe(events);
      // The certificate was fetched once, cached, and nothing else was fetched.
      expect(sns.requested.slice(fetched).filter((url) => url !== CERT_URL)).toEqual([]);
      expect(sns.requested.filter((url) => url === CERT_URL)).toHaveLength(1);
    });
  });

  describe("as a returned mail (DSN and ARF)", () => {
    const dsn = (body: string, secret = DSN_SECRET): EventRequest => ({
      headers: { "content-type": "message/rfc822", authorization: `Bearer ${secret}` },
      body,
    });
    /** The route as the inbound route calls it for a report that came back to our mail's envelope sender. */
    const returned = async (index: number) =>
      `dsn?rcpt=${encodeURIComponent(await bounceAddressOf(stack.server.db, readerAddress(index)))}`;

    it("suppresses a failed recipient, and a replay of the same report changes nothing", async () => {
      const report = dsnMail(readerAddress(12), { messageId: "<same-report@relay.example.net>" });
      expect(await (await post(await returned(12), dsn(report))).json()).toEqual({
        received: [{ kind: "bounce", effect: "suppressed" }],
      });
      expect(await (await post(await returned(12), dsn(report))).json()).toEqual({
        received: [{ kind: "bounce", effect: "duplicate" }],
      });
      expect(await reader(12)).toMatchObject({ suppressed: true });
    });

    it("unsubscribes the recipient of an abuse report, found in the reported mail when the report does not name it", async () => {
      const answer = await post(await returned(13), dsn(arfMail(readerAddress(13), { inHeadersOnly: true })));
      expect(await answer.json()).toEqual({ received: [{ kind: "complaint", effect: "unsubscribed" }] });
      expect(await reader(13)).toMatchObject({ status: "unsubscribed", unsubscribe_reason: "complaint" });
    });

    it("counts a full mailbox (5.2.2) and a timeout as temporary, and holds a refusal of the sender (5.7.1) against no reader", async () => {
      const answers = await Promise.all([
        post(await returned(22), dsn(dsnMail(readerAddress(22), { status: "5.2.2" }))),
        post(await returned(23), dsn(dsnMail(readerAddress(23), { status: "4.4.7" }))),
        post(
          await returned(24),
          dsn(
            dsnMail(readerAddress(24), {
              status: "5.7.1",
              diagnostic: "550 5.7.1 Service unavailable; client host blocked using a blocklist",
            }),
          ),
        ),
      ]);
      expect(await Promise.all(answers.map((answer) => answer.json()))).toEqual([
        { received: [{ kind: "soft_bounce", effect: "counted" }] },
        { received: [{ kind: "soft_bounce", effect: "counted" }] },
        { received: [{ kind: "sender_refusal", effect: "counted" }] },
      ]);
      for (const index of [22, 23, 24]) expect(await reader(index)).toEqual(untouched);
    });

    it("answers a delay warning and a mail that is no report as ignored, and refuses a wrong secret and a body that is no mail", async () => {
      const events = await eventCount();
      const delayed = await post(
        "dsn",
        dsn(dsnMail(readerAddress(14), { action: "delayed", status: "4.4.1" })),
      );
      expect(await delayed.json()).toEqual({ received: [], ignored: "no_failed_recipient" });
      const wrong = await post(
        await returned(14),
        dsn(dsnMail(readerAddress(14)), "not-the-secret-not-the-secret-not-the"),
      );
      expect(wrong.status).toBe(401);
      const unsigned = await post("dsn", { headers: {}, body: dsnMail(readerAddress(14)) });
      expect(unsigned.status).toBe(401);
      // An out-of-office reply that reached the bounce mailbox: acknowledged, so the route does not retry it.
      const plain = await post(
        "dsn",
        dsn("From: a@example.com\r\nSubject: I am away\r\n\r\nBack on Monday\r\n"),
      );
      expect(plain.status).toBe(200);
      expect(await plain.json()).toEqual({ received: [], ignored: "not_a_report" });
      const notMail = await post("dsn", dsn('{"type": "email.bounced"}'));
      expect(notMail.status).toBe(400);
      expect(await reader(14)).toEqual(untouched);
      expect(await eventCount()).toBe(events);
    });
  });

  it("refuses an unknown source (404), another method (405) and a body over 256 KB (413)", async () => {
    const big = await resendEvent({ type: "email.bounced", padding: "x".repeat(300 * 1024) });
    const [unknown, get, large] = await Promise.all([
      post("sendgrid", await resendEvent(resendBounce(readerAddress(15)))),
      fetch(`${stack.url}/functions/v1/mail-events/resend`),
      post("resend", big),
    ]);
    expect([unknown.status, get.status, large.status]).toEqual([404, 405, 413]);
    expect(await reader(15)).toEqual(untouched);
  });

  it("skips the bounced and the complained in the next Effect, shows them in the edition's status, and a confirmed re-signup lifts a bounce", async () => {
    const identity = contentIdentity();
    const today = dayIn(identity.timeZone, new Date());
    const earlier = new Date(Date.now() - 86_400_000);
    const yesterday = dayIn(identity.timeZone, earlier);
    const publicDir = mkdtempSync(path.join(tmpdir(), "mail-events-public-"));
    try {
      const context = effectContext(
        { SITE_URL: "https://www.thepurposeeffect.example", SMTP_URL: smtp.url, MAIL_RATE_PER_SECOND: "0" },
        {
          db: stack.server.db,
          dataDir: publicDir,
          publicDir,
          log: { info() {}, warn() {}, error() {} },
          identity,
        },
      );
      const send = (date: string) => runEffectCommand({ action: "send", date, retryUnknown: false }, context);
      publishEdition(publicDir, fixtureEdition(yesterday));
      publishEdition(publicDir, fixtureEdition(today));

      smtp.mails.length = 0;
      await send(yesterday);
      const first = smtp.mails.flatMap(recipients);
      // 30 readers and 44, 45, less the 4 suppressed (1, 5, 7, 12) and the 3 unsubscribed (2, 8, 13) above.
      expect(first).toHaveLength(25);
      for (const index of [1, 2, 5, 7, 8, 12, 13]) expect(first).not.toContain(readerAddress(index));

      // After that edition, reader 20's mail bounces and reader 21 reports it as spam.
      await post("resend", await resendEvent(resendBounce(readerAddress(20))));
      await post(
        `dsn?rcpt=${encodeURIComponent(await bounceAddressOf(stack.server.db, readerAddress(21)))}`,
        {
          headers: { authorization: `Bearer ${DSN_SECRET}` },
          body: arfMail(readerAddress(21)),
        },
      );
      // Reader 25's server refuses the mail over the sending domain's DMARC: a warning, not a bounce.
      await post(
        `dsn?rcpt=${encodeURIComponent(await bounceAddressOf(stack.server.db, readerAddress(25)))}`,
        {
          headers: { authorization: `Bearer ${DSN_SECRET}` },
          body: dsnMail(readerAddress(25), {
            status: "5.7.26",
            diagnostic:
              "550 5.7.26 Unauthenticated email from thepurposeeffect.example is not accepted due to domain's DMARC policy",
          }),
        },
      );
      const status = await runEffectCommand({ action: "status", date: yesterday }, context);
      expect(status).toMatch(/^refused +1 \(4\.0 % of the 25 sent\) because of the sender, not the reader$/m);
      expect(status).toContain("refused a mail of this edition over the sending domain");
      expect(status).toMatch(/^bounced +1 \(4\.0 % of the 25 sent\)$/m);
      expect(status).toMatch(/^complained +1 \(4\.0 % of the 25 sent\)$/m);
      expect(status).toContain("at or above 0.3 %");
      // Reader 31 (bounced through Standard Webhooks' names) and 41 to 43 (SES's and Resend's
      // Permanent) are more suppressed.
      expect(await createAdminQueries(stack.server.db).health()).toEqual({ suppressed: 9, complained: 4 });

      smtp.mails.length = 0;
      await send(today);
      const second = smtp.mails.flatMap(recipients);
      expect(second).toHaveLength(23);
      expect(new Set(second).size).toBe(23);
      expect(second).not.toContain(readerAddress(20));
      expect(second).not.toContain(readerAddress(21));
      expect(second).toEqual(expect.arrayContaining([22, 23, 24, 25].map(readerAddress)));

      // Reader 20 signs up again and confirms: the bounce no longer holds them back.
      smtp.mails.length = 0;
      expect((await stack.post("send-confirmation", { email: readerAddress(20) })).status).toBe(200);
      const [confirmation] = await smtp.waitForMails(1);
      const token = linkIn(confirmation, "confirm").searchParams.get("confirm");
      expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
      expect(await createAdminQueries(stack.server.db).health()).toEqual({ suppressed: 8, complained: 4 });
      const lifted = (await createAdminQueries(stack.server.db).list("confirmed")).find(
        (row) => row.email === readerAddress(20),
      );
      expect(lifted?.suppressed_at).toBeNull();
      const complained = (await createAdminQueries(stack.server.db).list("unsubscribed")).find(
        (row) => row.email === readerAddress(21),
      );
      expect(complained).toMatchObject({ unsubscribe_reason: "complaint" });
      expect(complained?.complained_at).toBeInstanceOf(Date);
    } finally {
      rmSync(publicDir, { recursive: true, force: true });
    }
  });
});

describe("SNS's SHA1 signatures, with SNS_ALLOW_SIGNATURE_V1=1", () => {
  let stack: TestStack;
  const sns = snsFetch(key);
  beforeAll(async () => {
    stack = await startTestStack(
      "PGlite",
      { SES_TOPIC_ARN: TOPIC_ARN, SNS_ALLOW_SIGNATURE_V1: "1" },
      undefined,
      sns.fetch,
    );
    await seedConfirmed(stack.server.db, 1);
  });
  afterAll(() => stack?.close());

  it("are accepted, for a topic whose SignatureVersion is still 1", async () => {
    const message = snsMessage(
      key,
      "Notification",
      { Message: sesBounce(readerAddress(1)) },
      { version: "1" },
    );
    const answer = await fetch(`${stack.url}/functions/v1/mail-events/ses`, {
      method: "POST",
      headers: message.headers,
      body: message.body,
    });
    expect(await answer.json()).toEqual({ received: [{ kind: "bounce", effect: "suppressed" }] });
  });
});

describe("a source that is not set up", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack("PGlite");
  });
  afterAll(() => stack?.close());

  it.each(["resend", "ses", "dsn"])(
    "answers 503 for %s, so the provider keeps the events and retries",
    async (source) => {
      const answer = await fetch(`${stack.url}/functions/v1/mail-events/${source}`, {
        method: "POST",
        body: "{}",
      });
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("not_configured");
      expect(answer.headers.get("retry-after")).toBe("3600");
    },
  );
});
