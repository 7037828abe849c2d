/**
 * The providers' own documented examples, read as the providers mean them: Amazon SES's bounce,
 * complaint and delivery notifications in both shapes it publishes to SNS (an identity's
 * notification, https://docs.aws.amazon.com/ses/latest/dg/notification-examples.html, and a
 * configuration set's event, https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-examples.html),
 * each inside an SNS message signed with SignatureVersion 2; and Resend's `email.bounced`,
 * `email.complained` and `email.delivered` webhooks (https://resend.com/docs/webhooks/emails/bounced).
 * SES says a Permanent bounce means "you should remove the recipient's email address from your
 * mailing list": it suppresses, whatever status it carries.
 */
import {
  makeSigningKey,
  RESEND_SECRET,
  resendEvent,
  snsFetch,
  snsMessage,
  TOPIC_ARN,
} from "../../../../../test/support/mail-events.ts";
import { readResendEvent } from "../resend.ts";
import { createSesSource } from "../ses.ts";

const key = makeSigningKey();
const ses = createSesSource(snsFetch(key).fetch);
const now = new Date();

/** SES's notification `message`, delivered by SNS as a signed Notification; the events it makes. */
async function sesReading(message: object) {
  const request = snsMessage(key, "Notification", { Message: JSON.stringify(message) }, { at: now });
  const { events } = await ses.read(new TextEncoder().encode(request.body), [TOPIC_ARN], now);
  return events.map((event) => [event.kind, event.recipient]);
}

const mail = {
  timestamp: "2016-01-27T14:59:38.237Z",
  source: "john@example.com",
  sourceArn: "arn:aws:ses:us-east-1:888888888888:identity/example.com",
  sourceIp: "127.0.3.0",
  sendingAccountId: "123456789012",
  messageId: "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000",
  destination: ["jane@example.com", "mary@example.com", "richard@example.com"],
};

describe("Amazon SES's documented notifications (an identity's, notificationType)", () => {
  it("suppresses the developer guide's Permanent bounce with status 5.0.0 and 'smtp; 550 user unknown'", async () => {
    expect(
      await sesReading({
        notificationType: "Bounce",
        bounce: {
          bounceType: "Permanent",
          bounceSubType: "General",
          bouncedRecipients: [
            {
              emailAddress: "jane@example.com",
              status: "5.0.0",
              action: "failed",
              diagnosticCode: "smtp; 550 user unknown",
            },
          ],
          timestamp: "2016-01-27T14:59:38.237Z",
          feedbackId: "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa068a-000000",
          remoteMtaIp: "127.0.2.0",
        },
        mail,
      }),
    ).toEqual([["bounce", "jane@example.com"]]);
  });

  it("suppresses the bounce with a DSN (5.1.1) and the one without a DSN, for each recipient it names", async () => {
    expect(
      await sesReading({
        notificationType: "Bounce",
        bounce: {
          bounceType: "Permanent",
          reportingMTA: "dns; email.example.com",
          bouncedRecipients: [
            {
              emailAddress: "jane@example.com",
              status: "5.1.1",
              action: "failed",
              diagnosticCode: "smtp; 550 5.1.1 <jane@example.com>... User",
            },
          ],
          bounceSubType: "General",
          timestamp: "2016-01-27T14:59:38.237Z",
          feedbackId: "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa068a-000000",
          remoteMtaIp: "127.0.2.0",
        },
        mail,
      }),
    ).toEqual([["bounce", "jane@example.com"]]);
    expect(
      await sesReading({
        notificationType: "Bounce",
        bounce: {
          bounceType: "Permanent",
          bounceSubType: "General",
          bouncedRecipients: [{ emailAddress: "jane@example.com" }, { emailAddress: "richard@example.com" }],
          timestamp: "2016-01-27T14:59:38.237Z",
          feedbackId: "00000137860315fd-869464a4-8680-4114-98d3-716fe35851f9-000000",
          remoteMtaIp: "127.0.2.0",
        },
        mail,
      }),
    ).toEqual([
      ["bounce", "jane@example.com"],
      ["bounce", "richard@example.com"],
    ]);
  });

  it("counts a Transient bounce (a full mailbox), and keeps one SES says was about our content off the reader", async () => {
    const transient = (bounceSubType: string, status: string, diagnosticCode: string) =>
      sesReading({
        notificationType: "Bounce",
        bounce: {
          bounceType: "Transient",
          bounceSubType,
          bouncedRecipients: [{ emailAddress: "jane@example.com", status, action: "failed", diagnosticCode }],
          timestamp: "2016-01-27T14:59:38.237Z",
        },
        mail,
      });
    expect(await transient("MailboxFull", "5.2.2", "smtp; 552 5.2.2 Mailbox full")).toEqual([
      ["soft_bounce", "jane@example.com"],
    ]);
    // Never made permanent by its code.
    expect(await transient("General", "5.1.1", "smtp; 550 5.1.1 user unknown")).toEqual([
      ["soft_bounce", "jane@example.com"],
    ]);
    expect(await transient("ContentRejected", "5.6.0", "smtp; 554 5.6.0 content rejected")).toEqual([
      ["sender_refusal", "jane@example.com"],
    ]);
  });

  it("unsubscribes the complaint with a feedback report and the one without, and reads a delivery as nothing", async () => {
    expect(
      await sesReading({
        notificationType: "Complaint",
        complaint: {
          userAgent: "AnyCompany Feedback Loop (V0.01)",
          complainedRecipients: [{ emailAddress: "richard@example.com" }],
          complaintFeedbackType: "abuse",
          arrivalDate: "2016-01-27T14:59:38.237Z",
          timestamp: "2016-01-27T14:59:38.237Z",
          feedbackId: "000001378603177f-18c07c78-fa81-4a58-9dd1-fedc3cb8f49a-000000",
        },
        mail,
      }),
    ).toEqual([["complaint", "richard@example.com"]]);
    expect(
      await sesReading({
        notificationType: "Complaint",
        complaint: {
          complainedRecipients: [{ emailAddress: "richard@example.com" }],
          timestamp: "2016-01-27T14:59:38.237Z",
          feedbackId: "0000013786031775-163e3910-53eb-4c8e-a04a-f29debf88a84-000000",
        },
        mail,
      }),
    ).toEqual([["complaint", "richard@example.com"]]);
    expect(
      await sesReading({
        notificationType: "Delivery",
        mail,
        delivery: {
          timestamp: "2016-01-27T14:59:38.237Z",
          recipients: ["jane@example.com"],
          processingTimeMillis: 546,
          reportingMTA: "a8-70.smtp-out.amazonses.com",
          smtpResponse: "250 ok:  Message 64111812 accepted",
          remoteMtaIp: "127.0.2.0",
        },
      }),
    ).toEqual([]);
  });
});

describe("Amazon SES's documented event records (a configuration set's, eventType)", () => {
  const eventMail = {
    timestamp: "2017-08-05T00:40:02.012Z",
    source: "Sender Name <sender@example.com>",
    sourceArn: "arn:aws:ses:us-east-1:123456789012:identity/sender@example.com",
    sendingAccountId: "123456789012",
    messageId: "EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000",
    destination: ["recipient@example.com"],
    tags: { "ses:configuration-set": ["ConfigSet"] },
  };

  it("suppresses the Bounce record, unsubscribes the Complaint record, and reads the Delivery record as nothing", async () => {
    expect(
      await sesReading({
        eventType: "Bounce",
        bounce: {
          bounceType: "Permanent",
          bounceSubType: "General",
          bouncedRecipients: [
            {
              emailAddress: "recipient@example.com",
              action: "failed",
              status: "5.1.1",
              diagnosticCode: "smtp; 550 5.1.1 user unknown",
            },
          ],
          timestamp: "2017-08-05T00:41:02.669Z",
          feedbackId: "01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000",
          reportingMTA: "dsn; mta.example.com",
        },
        mail: eventMail,
      }),
    ).toEqual([["bounce", "recipient@example.com"]]);
    expect(
      await sesReading({
        eventType: "Complaint",
        complaint: {
          complainedRecipients: [{ emailAddress: "recipient@example.com" }],
          timestamp: "2017-08-05T00:41:02.669Z",
          feedbackId: "01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000",
          userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36",
          complaintFeedbackType: "abuse",
          arrivalDate: "2017-08-05T00:41:02.669Z",
        },
        mail: eventMail,
      }),
    ).toEqual([["complaint", "recipient@example.com"]]);
    expect(
      await sesReading({
        eventType: "Delivery",
        mail: eventMail,
        delivery: {
          timestamp: "2016-10-19T23:21:04.133Z",
          processingTimeMillis: 11893,
          recipients: ["recipient@example.com"],
          smtpResponse: "250 2.6.0 Message received",
          reportingMTA: "mta.example.com",
        },
      }),
    ).toEqual([]);
  });
});

describe("Resend's documented webhooks", () => {
  const data = {
    broadcast_id: "8b146471-e88e-4322-86af-016cd36fd216",
    created_at: "2024-11-22T23:41:11.894719+00:00",
    email_id: "56761188-7520-42d8-8898-ff6fc54ce618",
    from: "Acme <onboarding@resend.dev>",
    to: ["delivered@resend.dev"],
    subject: "Sending this example",
    template_id: "43f68331-0622-4e15-8202-246a0388854b",
    tags: { category: "confirm_email" },
  };
  const read = async (payload: object) => {
    const request = await resendEvent(payload, { at: now });
    const { events, outcome } = await readResendEvent(
      new Headers(request.headers),
      new TextEncoder().encode(request.body),
      RESEND_SECRET,
      now,
    );
    return events.length > 0 ? events.map((event) => [event.kind, event.recipient]) : outcome;
  };

  it("suppresses a Permanent email.bounced (Suppressed, General), counts a Transient one, unsubscribes email.complained", async () => {
    const bounced = (bounce: object) =>
      read({ type: "email.bounced", created_at: "2024-11-22T23:41:12.126Z", data: { ...data, bounce } });
    expect(
      await bounced({
        message:
          "The recipient's email address is on the suppression list because it has a recent history of producing hard bounces.",
        subType: "Suppressed",
        type: "Permanent",
      }),
    ).toEqual([["bounce", "delivered@resend.dev"]]);
    expect(
      await bounced({ message: "550 5.2.2 mailbox full", subType: "General", type: "Permanent" }),
    ).toEqual([["bounce", "delivered@resend.dev"]]);
    expect(
      await bounced({ message: "452 4.2.2 mailbox full", subType: "MailboxFull", type: "Transient" }),
    ).toEqual([["soft_bounce", "delivered@resend.dev"]]);
    expect(await read({ type: "email.complained", created_at: "2024-11-22T23:41:12.126Z", data })).toEqual([
      ["complaint", "delivered@resend.dev"],
    ]);
    expect(await read({ type: "email.delivered", created_at: "2024-11-22T23:41:12.126Z", data })).toBe(
      "ignored:email.delivered",
    );
  });
});
