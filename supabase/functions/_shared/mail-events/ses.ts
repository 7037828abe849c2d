/**
 * Amazon SES notifications, delivered by SNS (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
 * Every message is checked before anything is read from it: its topic must be one of
 * SES_TOPIC_ARN (anyone can make an SNS topic, and SNS signs their messages too), its signature
 * must verify with the certificate at its SigningCertURL, fetched only from an
 * `https://sns.<region>.amazonaws.com/….pem` address and cached, and its timestamp must be within
 * 5 minutes. A `SubscriptionConfirmation` is confirmed by fetching its SubscribeURL (same host
 * rule); a `Notification` carries SES's `Bounce` (Permanent, Transient, Undetermined) or
 * `Complaint`. The fetch is injectable, so the tests serve a certificate they made.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { parseJsonObject, Refusal } from "../http/answers.ts";
import { type MailEvent, SIGNATURE_TOLERANCE_SECONDS, type SourceReading } from "./mail-event.ts";

export type Fetch = (url: string) => Promise<Response>;

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;
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

/** An https URL on SNS's own hosts, or null. */
function snsUrl(value: unknown, pem: boolean): URL | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    if (url.protocol !== "https:" || !SNS_HOST.test(url.hostname) || url.port !== "") return null;
    if (pem && !url.pathname.endsWith(".pem")) return null;
    return url;
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
  read(body: Uint8Array, topics: readonly string[], now: Date): Promise<SourceReading>;
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

  async function checkSignature(message: Record<string, unknown>): Promise<void> {
    const certificateUrl = snsUrl(message.SigningCertURL, true);
    if (!certificateUrl)
      throw new Refusal(
        401,
        "invalid_signature",
        "SigningCertURL is not an https://sns.<region>.amazonaws.com/….pem address.",
      );
    const algorithm =
      message.SignatureVersion === "2" ? "sha256" : message.SignatureVersion === "1" ? "sha1" : null;
    if (!algorithm || typeof message.Signature !== "string")
      throw new Refusal(
        401,
        "invalid_signature",
        "The message has no SNS signature (SignatureVersion 1 or 2).",
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
    const signed = new TextEncoder().encode(snsStringToSign(message));
    const signature = Uint8Array.from(atob(message.Signature), (char) => char.charCodeAt(0));
    if (!verify(algorithm, signed, key, signature))
      throw new Refusal(401, "invalid_signature", "The message's SNS signature does not verify.");
  }

  return {
    async read(body, topics, now) {
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
      await checkSignature(message);

      if (type === "UnsubscribeConfirmation")
        return { events: [], outcome: "ignored:unsubscribe_confirmation" };
      if (type === "SubscriptionConfirmation") {
        const subscribe = snsUrl(message.SubscribeURL, false);
        if (!subscribe)
          throw new Refusal(
            400,
            "invalid_event",
            "SubscribeURL is not an https://sns.<region>.amazonaws.com address.",
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

interface SesNotification {
  notificationType?: string;
  eventType?: string;
  bounce?: {
    bounceType?: string;
    bounceSubType?: string;
    bouncedRecipients?: { emailAddress?: string; diagnosticCode?: string; status?: string }[];
    timestamp?: string;
  };
  complaint?: {
    complainedRecipients?: { emailAddress?: string }[];
    complaintFeedbackType?: string;
    timestamp?: string;
  };
}

/** The events in an SES notification (an identity's notification or a configuration set's event). */
function sesEvents(messageId: string, text: string, now: Date): MailEvent[] {
  let notification: SesNotification;
  try {
    notification = JSON.parse(text) as SesNotification;
  } catch {
    throw new Refusal(400, "invalid_event", "The SNS message does not hold an SES notification (JSON).");
  }
  const type = notification.notificationType ?? notification.eventType;
  const at = (value: string | undefined) => {
    const date = new Date(value ?? "");
    return Number.isNaN(date.getTime()) ? now : date;
  };
  if (type === "Bounce" && notification.bounce) {
    const { bounce } = notification;
    const kind = bounce.bounceType === "Permanent" ? "bounce" : "soft_bounce";
    return (bounce.bouncedRecipients ?? []).flatMap((recipient, index) =>
      recipient.emailAddress
        ? [
            {
              source: "ses" as const,
              id: `${messageId}#${index}`,
              kind,
              recipient: recipient.emailAddress,
              occurredAt: at(bounce.timestamp),
              detail: [bounce.bounceType, bounce.bounceSubType, recipient.diagnosticCode]
                .filter(Boolean)
                .join(": "),
            },
          ]
        : [],
    );
  }
  if (type === "Complaint" && notification.complaint) {
    const { complaint } = notification;
    return (complaint.complainedRecipients ?? []).flatMap((recipient, index) =>
      recipient.emailAddress
        ? [
            {
              source: "ses" as const,
              id: `${messageId}#${index}`,
              kind: "complaint" as const,
              recipient: recipient.emailAddress,
              occurredAt: at(complaint.timestamp),
              detail: `reported as spam${complaint.complaintFeedbackType ? ` (${complaint.complaintFeedbackType})` : ""}`,
            },
          ]
        : [],
    );
  }
  return [];
}
