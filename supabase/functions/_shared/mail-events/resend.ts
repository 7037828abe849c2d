/**
 * Resend's webhooks (https://resend.com/docs/dashboard/webhooks/verify-webhooks-requests), signed
 * the Standard Webhooks way (https://www.standardwebhooks.com/): `webhook-signature` holds
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (several, space-separated, while a secret is
 * rotated), keyed by the secret's base64 part after `whsec_`, with `webhook-id` and
 * `webhook-timestamp`; Resend sends the same under Svix's names (`svix-id`, `svix-timestamp`,
 * `svix-signature`), and either set is read. `email.bounced` and `email.complained` become events; any other type is acknowledged
 * and ignored, so the dashboard shows no failures for events the list does not need.
 */
import { classifyProviderBounce } from "./rfc3463.ts";
import { parseJsonObject, Refusal } from "../http/answers.ts";
import {
  constantTimeEqual,
  DETAIL_CHARS,
  json,
  type MailEvent,
  SIGNATURE_TOLERANCE_SECONDS,
  type SourceReading,
} from "./mail-event.ts";

const SECRET_PREFIX = "whsec_";

/** The HMAC key of a `whsec_…` secret, or null when it is not one (checked at start: config.ts). */
export function resendSecretKey(secret: string): Uint8Array<ArrayBuffer> | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  try {
    const binary = atob(secret.slice(SECRET_PREFIX.length));
    return binary.length >= 16 ? Uint8Array.from(binary, (char) => char.charCodeAt(0)) : null;
  } catch {
    return null;
  }
}

async function sign(key: Uint8Array<ArrayBuffer>, content: Uint8Array<ArrayBuffer>): Promise<string> {
  const hmacKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, content));
  let binary = "";
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The `svix-signature` value for a body: what Resend sends, and what the tests sign with. */
export async function resendSignature(
  secret: string,
  id: string,
  timestamp: string,
  body: Uint8Array,
): Promise<string> {
  const key = resendSecretKey(secret);
  if (!key) throw new Error("not a whsec_ secret");
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return `v1,${await sign(key, content)}`;
}

/** Checks the signature and the timestamp (401 for either), then reads the event. */
export async function readResendEvent(
  headers: Headers,
  body: Uint8Array,
  secret: string,
  now: Date,
): Promise<SourceReading> {
  // Standard Webhooks' names, or Svix's (what Resend sends today): the three from one set.
  const prefix = headers.has("webhook-signature") ? "webhook" : "svix";
  const id = headers.get(`${prefix}-id`);
  const timestamp = headers.get(`${prefix}-timestamp`);
  const signatures = headers.get(`${prefix}-signature`);
  if (!id || !timestamp || !signatures)
    throw new Refusal(
      401,
      "invalid_signature",
      "The event is not signed: webhook-id, webhook-timestamp and webhook-signature (or svix-id, svix-timestamp and svix-signature) are required.",
      {
        outcome: "unsigned",
      },
    );
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (!Number.isFinite(seconds) || Math.abs(now.getTime() / 1000 - seconds) > SIGNATURE_TOLERANCE_SECONDS)
    throw new Refusal(
      401,
      "stale_event",
      "The event's timestamp is more than 5 minutes from now: refused as a replay.",
    );
  const expected = (await resendSignature(secret, id, timestamp, body)).slice("v1,".length);
  const matches = signatures
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .some((entry) => constantTimeEqual(entry.slice("v1,".length), expected));
  if (!matches)
    throw new Refusal(
      401,
      "invalid_signature",
      "The event's signature does not match RESEND_WEBHOOK_SECRET.",
    );

  const event = parseJsonObject(body);
  const type = typeof event.type === "string" ? event.type : "";
  if (type !== "email.bounced" && type !== "email.complained")
    return { events: [], outcome: `ignored:${type || "untyped"}` };
  const data = json.object(event.data);
  const recipients = (Array.isArray(data.to) ? json.list(data.to, 50) : [data.to]).filter(
    (to): to is string => typeof to === "string" && to.includes("@"),
  );
  if (recipients.length === 0)
    throw new Refusal(400, "invalid_event", `The ${type} event names no recipient (data.to).`);
  const occurredAt = new Date(json.string(event.created_at) ?? Number.NaN);
  const at = Number.isNaN(occurredAt.getTime()) ? now : occurredAt;
  const bounce = json.object(data.bounce);
  // Resend's bounce types are SES's (https://resend.com/docs/dashboard/emails/email-bounces):
  // `Permanent` (General, NoEmail, Suppressed, OnAccountSuppressionList) suppresses; `Transient`
  // is counted. An `email.bounced` without a type is what Resend documents it to be: "the
  // recipient's mail server permanently rejected the email".
  const bounceType = json.string(bounce.type) ?? (bounce.type === undefined ? "Permanent" : undefined);
  const codes =
    typeof bounce.diagnosticCode === "string" ? [bounce.diagnosticCode] : json.list(bounce.diagnosticCode, 4);
  const diagnostic = [json.string(bounce.message), ...codes.map(json.string)].filter(Boolean).join(" ");
  const kind: MailEvent["kind"] =
    type === "email.complained"
      ? "complaint"
      : classifyProviderBounce({
          type: bounceType,
          subType: json.string(bounce.subType),
          status: undefined,
          diagnostic: diagnostic || undefined,
        }).kind;
  const detail =
    type === "email.complained"
      ? "reported as spam"
      : [bounceType, json.string(bounce.subType), diagnostic]
          .filter(Boolean)
          .join(": ")
          .slice(0, DETAIL_CHARS);
  return {
    events: recipients.map((recipient, index) => ({
      source: "resend",
      id: recipients.length === 1 ? id : `${id}#${index}`,
      kind,
      recipient,
      occurredAt: at,
      detail: detail || type,
    })),
    outcome: kind,
  };
}
