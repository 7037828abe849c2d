/**
 * The providers' signatures, checked on their documented payloads, each signed here with
 * node:crypto exactly as its documentation says: Standard Webhooks (Resend) and SNS's
 * notifications (SES). A signature that is wrong in any way, including one that is not base64 or
 * not the key's length, is a 401 and never a 500.
 */
import { createHmac, createSign } from "node:crypto";
import { makeSigningKey } from "../../../../../test/support/mail-events.ts";
import { Refusal } from "../../http/answers.ts";
import { readResendEvent } from "../resend.ts";
import { createSesSource, snsStringToSign } from "../ses.ts";

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Refusal) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("not refused");
};

describe("Standard Webhooks (Resend)", () => {
  // The specification's published test vector.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  const timestamp = "1614265330";
  const body = '{"test": 2432232314}';
  const at = new Date(Number(timestamp) * 1000);

  /** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the base64 part after `whsec_`. */
  const specSignature = (content: string, key = secret) =>
    `v1,${createHmac("sha256", Buffer.from(key.slice("whsec_".length), "base64"))
      .update(content)
      .digest("base64")}`;

  it("signs as the specification's vector says", () => {
    expect(specSignature(`${id}.${timestamp}.${body}`)).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it.each(["webhook", "svix"])("accepts the %s-id, -timestamp and -signature headers", async (prefix) => {
    const headers = new Headers({
      [`${prefix}-id`]: id,
      [`${prefix}-timestamp`]: timestamp,
      // A rotated secret's old signature first, then the right one.
      [`${prefix}-signature`]: `v1,bm9wZQ== ${specSignature(`${id}.${timestamp}.${body}`)}`,
    });
    expect(await readResendEvent(headers, Buffer.from(body), secret, at)).toEqual({
      events: [],
      outcome: "ignored:untyped",
    });
  });

  it("refuses a changed body, another id, an unparsable or a v2 signature with a 401", async () => {
    const signed = (signature: string, messageId = id) =>
      new Headers({
        "webhook-id": messageId,
        "webhook-timestamp": timestamp,
        "webhook-signature": signature,
      });
    const good = specSignature(`${id}.${timestamp}.${body}`);
    const cases = [
      readResendEvent(signed(good), Buffer.from(body.replace("2", "3")), secret, at),
      readResendEvent(signed(good, "msg_other"), Buffer.from(body), secret, at),
      readResendEvent(signed("v1,not base64 at all!!"), Buffer.from(body), secret, at),
      readResendEvent(signed("v1,"), Buffer.from(body), secret, at),
      readResendEvent(signed(good.replace("v1,", "v2,")), Buffer.from(body), secret, at),
      // webhook-signature present: the svix-* names of the same request are not mixed in.
      readResendEvent(
        new Headers({ "webhook-signature": good, "svix-id": id, "svix-timestamp": timestamp }),
        Buffer.from(body),
        secret,
        at,
      ),
    ];
    const answers = await Promise.all(cases.map(refusal));
    expect(answers.map((answer) => [answer.status, answer.code])).toEqual(
      Array.from({ length: cases.length }, () => [401, "invalid_signature"]),
    );
  });
});

describe("SNS notifications (SES)", () => {
  const key = makeSigningKey();
  const TOPIC = "arn:aws:sns:us-west-2:123456789012:MyTopic";
  const CERT =
    "https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem";
  const CHINA_TOPIC = "arn:aws-cn:sns:cn-north-1:123456789012:MyTopic";
  const CHINA_CERT = "https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-0123456789abcdef.pem";
  const TIMESTAMP = "2012-05-02T00:54:06.655Z";
  const at = new Date(TIMESTAMP);
  const sesBounce = JSON.stringify({
    notificationType: "Bounce",
    bounce: {
      bounceType: "Permanent",
      bounceSubType: "General",
      bouncedRecipients: [{ emailAddress: "ann@example.com", status: "5.1.1" }],
      timestamp: TIMESTAMP,
    },
    mail: { messageId: "0100018c-ses", destination: ["ann@example.com"] },
  });

  /** Amazon's documented HTTP/HTTPS notification, signed as SNS signs it (SHA256 for 2, SHA1 for 1). */
  function notification(
    options: { topic?: string; cert?: string; version?: "1" | "2"; signature?: string } = {},
  ) {
    const topic = options.topic ?? TOPIC;
    const message: Record<string, string> = {
      Type: "Notification",
      MessageId: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
      TopicArn: topic,
      Subject: "Amazon SES Email Event Notification",
      Message: sesBounce,
      Timestamp: TIMESTAMP,
      SignatureVersion: options.version ?? "2",
      SigningCertURL: options.cert ?? CERT,
      UnsubscribeURL: `https://sns.us-west-2.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${topic}:c9135db0-26c4-47ec-8998-413945fb5a96`,
    };
    const signer = createSign(message.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256");
    signer.update(snsStringToSign(message));
    message.Signature = options.signature ?? signer.sign(key.privateKey, "base64");
    return Buffer.from(JSON.stringify(message));
  }

  const source = () => {
    const fetched: string[] = [];
    const ses = createSesSource(async (url) => {
      fetched.push(url);
      return new Response(key.certificate, { status: 200 });
    });
    return { ses, fetched };
  };

  it("accepts a SignatureVersion 2 notification whose certificate is on SNS's host in the topic's region", async () => {
    const { ses, fetched } = source();
    const reading = await ses.read(notification(), [TOPIC], at);
    expect(reading.events.map((event) => [event.kind, event.recipient])).toEqual([
      ["bounce", "ann@example.com"],
    ]);
    expect(fetched).toEqual([CERT]);
  });

  it("takes China's regions from .amazonaws.com.cn", async () => {
    const { ses, fetched } = source();
    const reading = await ses.read(notification({ topic: CHINA_TOPIC, cert: CHINA_CERT }), [CHINA_TOPIC], at);
    expect(reading.outcome).toBe("notification");
    const off = await refusal(
      ses.read(
        notification({ topic: CHINA_TOPIC, cert: CHINA_CERT.replace(".amazonaws.com.cn", ".amazonaws.com") }),
        [CHINA_TOPIC],
        at,
      ),
    );
    expect(off.status).toBe(401);
    expect(fetched).toEqual([CHINA_CERT]);
  });

  it.each([
    ["an S3 bucket named sns", "https://sns.s3.amazonaws.com/SimpleNotificationService-x.pem"],
    ["another region", "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-x.pem"],
    ["a made-up label", "https://sns.anything.amazonaws.com/SimpleNotificationService-x.pem"],
    ["a deeper host", "https://sns.us-west-2.amazonaws.com.evil.example/SimpleNotificationService-x.pem"],
    ["plain http", CERT.replace("https:", "http:")],
    ["another port", CERT.replace(".com/", ".com:8443/")],
  ])("refuses a certificate from %s with a 401, fetching nothing", async (_what, cert) => {
    const { ses, fetched } = source();
    const answer = await refusal(ses.read(notification({ cert }), [TOPIC], at));
    expect([answer.status, answer.code]).toEqual([401, "invalid_signature"]);
    expect(fetched).toEqual([]);
  });

  it("refuses SignatureVersion 1 (SHA1) unless SNS_ALLOW_SIGNATURE_V1 allows it", async () => {
    const { ses } = source();
    const refused = await refusal(ses.read(notification({ version: "1" }), [TOPIC], at));
    expect(refused.status).toBe(401);
    expect(refused.message).toContain("SignatureVersion");
    const allowed = await ses.read(notification({ version: "1" }), [TOPIC], at, true);
    expect(allowed.events).toHaveLength(1);
    // Allowing SHA1 does not make a SHA1 signature good for version 2.
    const sha1AsV2 = JSON.parse(notification({ version: "1" }).toString()) as Record<string, string>;
    sha1AsV2.SignatureVersion = "2";
    expect((await refusal(ses.read(Buffer.from(JSON.stringify(sha1AsV2)), [TOPIC], at, true))).status).toBe(
      401,
    );
  });

  it.each([
    ["not base64", "this is not base64!"],
    ["base64 of the wrong length", Buffer.alloc(16, 7).toString("base64")],
    ["base64 without its padding", Buffer.alloc(255, 1).toString("base64").replace(/=+$/, "")],
    ["empty", ""],
  ])("answers a signature that is %s with a 401, not a 500", async (_what, signature) => {
    const { ses } = source();
    const answer = await refusal(ses.read(notification({ signature }), [TOPIC], at));
    expect([answer.status, answer.code]).toEqual([401, "invalid_signature"]);
  });
});
