/**
 * Amazon SES notifications, delivered by SNS (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
 * Every message is checked before anything is read from it: its topic must be one of
 * SES_TOPIC_ARN (anyone can make an SNS topic, and SNS signs their messages too), its signature
 * must verify with the certificate at its SigningCertURL, fetched only from
 * `https://sns.<the topic's region>.amazonaws.com/….pem` (`.amazonaws.com.cn` in China) and cached,
 * and its timestamp must be within 5 minutes. The signature is SignatureVersion 2 (SHA256); SHA1's
 * version 1 only with SNS_ALLOW_SIGNATURE_V1=1. A signature that is not base64 of the key's length
 * is refused like a wrong one (401). A `SubscriptionConfirmation` is confirmed by fetching its SubscribeURL (same host
 * rule); a `Notification` carries SES's `Bounce` (Permanent, Transient, Undetermined;
 * `rfc3463.ts`) or `Complaint`, read as SES means them (`sesEvents` below). The fetch is
 * injectable, so the tests serve a certificate they made.
 */
import { classifyProviderBounce } from "./rfc3463.ts";
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { parseJsonObject, Refusal } from "../http/answers.ts";
import {
  COMPLAINT_FEEDBACK_TYPES,
  DETAIL_CHARS,
  json,
  type MailEvent,
  SENDER_FEEDBACK_TYPES,
  SIGNATURE_TOLERANCE_SECONDS,
  type SourceReading,
} from "./mail-event.ts";

export type Fetch = (url: string) => Promise<Response>;

/** The region of a topic ARN (`arn:aws:sns:eu-west-1:…`, `arn:aws-cn:sns:cn-north-1:…`). */
const topicRegion = (arn: string): string | null =>
  /^arn:aws[a-z-]*:sns:([a-z0-9-]+):/.exec(arn)?.[1] ?? null;

/** SNS's own host in the topic's region: `sns.eu-west-1.amazonaws.com`, `.amazonaws.com.cn` in China. */
export const snsHost = (region: string): string =>
  `sns.${region}.amazonaws.com${region.startsWith("cn-") ? ".cn" : ""}`;

const FIELDS: Record<string, string[]> = {
  Notification: ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
  SubscriptionConfirmation: [
    "Message",
    "MessageId",
    "SubscribeURL",
    "Timestamp",
    "Token",
    "TopicArn",
    "Type",
  ],
  UnsubscribeConfirmation: ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
};

/** An https URL on SNS's host in `region` (nothing else: not `sns.s3.amazonaws.com`), or null. */
function snsUrl(value: unknown, region: string, pem: boolean): URL | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    if (url.protocol !== "https:" || url.hostname !== snsHost(region) || url.port !== "") return null;
    if (pem && !url.pathname.endsWith(".pem")) return null;
    return url;
  } catch {
    return null;
  }
}

/** Strict base64, or null: a signature that is not one is refused like a wrong one. */
function base64Bytes(value: string): Uint8Array | null {
  if (value.length === 0 || value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  try {
    return Uint8Array.from(atob(value), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The text SNS signed: each present field as "Name\nvalue\n", in its type's order. */
export function snsStringToSign(message: Record<string, unknown>): string {
  return (FIELDS[String(message.Type)] ?? [])
    .filter((field) => typeof message[field] === "string")
    .map((field) => `${field}\n${String(message[field])}\n`)
    .join("");
}

export interface SesSource {
  /** `allowSignatureV1`: SNS_ALLOW_SIGNATURE_V1, SHA1 signatures accepted too. */
  read(
    body: Uint8Array,
    topics: readonly string[],
    now: Date,
    allowSignatureV1?: boolean,
  ): Promise<SourceReading>;
}

/** SNS's certificates, cached by URL for the life of the instance. */
export function createSesSource(fetchUrl: Fetch): SesSource {
  const certificates = new Map<string, Promise<KeyObject>>();

  function publicKey(url: URL): Promise<KeyObject> {
    const cached = certificates.get(url.href);
    if (cached) return cached;
    const loading = (async () => {
      const response = await fetchUrl(url.href);
      if (!response.ok) throw new Error(`${url.href} answered ${response.status}`);
      return createPublicKey(await response.text());
    })();
    // A failed fetch is not cached: the next message tries again.
    loading.catch(() => certificates.delete(url.href));
    certificates.set(url.href, loading);
    return loading;
  }

  async function checkSignature(
    message: Record<string, unknown>,
    region: string,
    allowV1: boolean,
  ): Promise<void> {
    const certificateUrl = snsUrl(message.SigningCertURL, region, true);
    if (!certificateUrl)
      throw new Refusal(
        401,
        "invalid_signature",
        `SigningCertURL is not an https://${snsHost(region)}/….pem address (the topic's region).`,
      );
    const algorithm =
      message.SignatureVersion === "2"
        ? "sha256"
        : message.SignatureVersion === "1" && allowV1
          ? "sha1"
          : null;
    if (message.SignatureVersion === "1" && !allowV1)
      throw new Refusal(
        401,
        "invalid_signature",
        "The message is signed with SHA1 (SignatureVersion 1): set the topic's SignatureVersion to 2, or SNS_ALLOW_SIGNATURE_V1=1.",
        { outcome: "signature_v1" },
      );
    const signature = typeof message.Signature === "string" ? base64Bytes(message.Signature) : null;
    if (!algorithm || !signature)
      throw new Refusal(
        401,
        "invalid_signature",
        "The message has no SNS signature (SignatureVersion 2, base64).",
      );
    let key: KeyObject;
    try {
      key = await publicKey(certificateUrl);
    } catch (error) {
      // SNS retries a message that got a 5xx: a certificate that could not be fetched now may be later.
      throw new Refusal(
        503,
        "upstream_unavailable",
        `SNS's certificate could not be read: ${error instanceof Error ? error.message : String(error)}`,
        {
          headers: { "Retry-After": "30" },
          outcome: "certificate_unavailable",
        },
      );
    }
    const modulusBits = key.asymmetricKeyDetails?.modulusLength;
    let verified = false;
    if (modulusBits === undefined || signature.length === Math.ceil(modulusBits / 8)) {
      try {
        verified = verify(algorithm, new TextEncoder().encode(snsStringToSign(message)), key, signature);
      } catch {
        verified = false;
      }
    }
    if (!verified)
      throw new Refusal(401, "invalid_signature", "The message's SNS signature does not verify.");
  }

  return {
    async read(body, topics, now, allowSignatureV1 = false) {
      const message = parseJsonObject(body);
      const type = String(message.Type ?? "");
      if (!(type in FIELDS)) throw new Refusal(400, "invalid_event", `Not an SNS message type: "${type}".`);
      // The topic first: a stranger's topic costs no certificate fetch.
      if (typeof message.TopicArn !== "string" || !topics.includes(message.TopicArn))
        throw new Refusal(
          403,
          "invalid_signature",
          "The message is from a topic that is not in SES_TOPIC_ARN.",
          {
            outcome: "unknown_topic",
          },
        );
      const timestamp = new Date(String(message.Timestamp ?? "")).getTime();
      if (Number.isNaN(timestamp) || Math.abs(now.getTime() - timestamp) > SIGNATURE_TOLERANCE_SECONDS * 1000)
        throw new Refusal(
          401,
          "stale_event",
          "The message's timestamp is more than 5 minutes from now: refused as a replay.",
        );
      const region = topicRegion(message.TopicArn) as string;
      await checkSignature(message, region, allowSignatureV1);

      if (type === "UnsubscribeConfirmation")
        return { events: [], outcome: "ignored:unsubscribe_confirmation" };
      if (type === "SubscriptionConfirmation") {
        const subscribe = snsUrl(message.SubscribeURL, region, false);
        if (!subscribe)
          throw new Refusal(
            400,
            "invalid_event",
            `SubscribeURL is not an https://${snsHost(region)} address.`,
          );
        const answer = await fetchUrl(subscribe.href).catch((error: unknown) => {
          throw new Refusal(
            503,
            "upstream_unavailable",
            `The subscription could not be confirmed: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
        if (!answer.ok)
          throw new Refusal(
            503,
            "upstream_unavailable",
            `The subscription could not be confirmed: SNS answered ${answer.status}.`,
          );
        return { events: [], outcome: "subscribed" };
      }
      return {
        events: sesEvents(String(message.MessageId), String(message.Message ?? ""), now),
        outcome: "notification",
      };
    },
  };
}

/**
 * The events in an SES notification: an identity's notification (`notificationType`) or a
 * configuration set's published event (`eventType`), the two shapes of
 * https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html and
 * https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html. A
 * bounce is read as SES means it (`classifyProviderBounce`): `Permanent` suppresses. A complaint
 * is the reader's unless its feedback type says otherwise (`not-spam`, `auth-failure`). Deliveries
 * and the other event types change nothing.
 */
function sesEvents(messageId: string, text: string, now: Date): MailEvent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal(400, "invalid_event", "The SNS message does not hold an SES notification (JSON).");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Refusal(
      400,
      "invalid_event",
      "The SNS message does not hold an SES notification (a JSON object).",
    );
  const notification = parsed as Record<string, unknown>;
  const type = json.string(notification.notificationType) ?? json.string(notification.eventType);
  const at = (value: unknown) => {
    const date = new Date(json.string(value) ?? "");
    return Number.isNaN(date.getTime()) ? now : date;
  };
  const event = (
    index: number,
    kind: MailEvent["kind"],
    recipient: string,
    occurredAt: Date,
    detail: string,
  ) => ({
    source: "ses" as const,
    id: `${messageId}#${index}`,
    kind,
    recipient,
    occurredAt,
    detail: detail.slice(0, DETAIL_CHARS),
  });
  if (type === "Bounce") {
    const bounce = json.object(notification.bounce);
    const bounceType = json.string(bounce.bounceType);
    const subType = json.string(bounce.bounceSubType);
    return json.list(bounce.bouncedRecipients).flatMap((item, index) => {
      const recipient = json.object(item);
      const address = json.string(recipient.emailAddress);
      if (!address) return [];
      const diagnostic = json.string(recipient.diagnosticCode);
      const { kind } = classifyProviderBounce({
        type: bounceType,
        subType,
        status: json.string(recipient.status),
        diagnostic,
      });
      const detail = [bounceType, subType, diagnostic].filter(Boolean).join(": ");
      return [event(index, kind, address, at(bounce.timestamp), detail)];
    });
  }
  if (type === "Complaint") {
    const complaint = json.object(notification.complaint);
    const feedbackType = json.string(complaint.complaintFeedbackType)?.toLowerCase();
    // Without a feedback report, SES names no type: the reader pressed "report spam" all the same.
    const kind =
      feedbackType === undefined || COMPLAINT_FEEDBACK_TYPES.has(feedbackType)
        ? "complaint"
        : SENDER_FEEDBACK_TYPES.has(feedbackType)
          ? "sender_refusal"
          : null;
    if (!kind) return [];
    return json.list(complaint.complainedRecipients).flatMap((item, index) => {
      const address = json.string(json.object(item).emailAddress);
      if (!address) return [];
      const detail =
        kind === "complaint"
          ? `reported as spam${feedbackType ? ` (${feedbackType})` : ""}`
          : `feedback report: ${feedbackType}`;
      return [event(index, kind, address, at(complaint.timestamp), detail)];
    });
  }
  return [];
}
