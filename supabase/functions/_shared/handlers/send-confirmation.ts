/**
 * `send-confirmation`: a visitor's signup. Rate limited per client address before the body is
 * read; the address is checked, stored with its confirmation mail job in one transaction, and
 * the answer is the same whatever the address's status, so no one learns who is subscribed.
 */
import type { Config } from "../config.ts";
import { checkEmail } from "../email-address.ts";
import { type FunctionSpec, fromStorage } from "../function-wrapper.ts";
import { errorResponse, jsonResponse, mediaType, parseJsonObject } from "../http.ts";
import { clientKey, type RateLimit } from "../rate-limit.ts";
import type { Subscriptions } from "../subscriptions.ts";
import { perMinuteLimit } from "./per-minute-limit.ts";

export interface SendConfirmationDeps {
  subscriptions: Subscriptions;
  rateLimit: RateLimit;
  config: Config;
  now: () => Date;
}

const EMAIL_MESSAGES = {
  missing: "An e-mail address is required.",
  too_long: "The e-mail address is longer than 254 characters.",
  invalid: "This is not a valid e-mail address.",
} as const;

/**
 * The page a signup came from, for the consent record: the Referer (or Origin) reduced to origin
 * and path, so a query string (which may hold a token) is never stored.
 */
function consentSource(request: Request): string | null {
  for (const header of ["referer", "origin"]) {
    const raw = request.headers.get(header);
    if (!raw) continue;
    try {
      const url = new URL(raw);
      if (url.protocol === "http:" || url.protocol === "https:")
        return `${url.origin}${url.pathname}`.slice(0, 500);
    } catch {
      // Not a URL: try the next header.
    }
  }
  return null;
}

export function sendConfirmation(deps: SendConfirmationDeps): FunctionSpec {
  const { subscriptions, rateLimit, config, now } = deps;
  const name = "send-confirmation";
  return {
    name,
    admit: perMinuteLimit(rateLimit, name, config.rateLimitPerMinute, now),
    async handle({ request, body, cors, info }) {
      if (mediaType(request) !== "application/json") {
        return errorResponse(
          415,
          "unsupported_media_type",
          "Send the request body as application/json.",
          cors,
        );
      }
      const parsed = parseJsonObject(body, cors);
      if (!parsed.ok) return parsed.response;
      const email = checkEmail(parsed.value.email);
      if (!email.ok) {
        info.note?.(`invalid_email:${email.reason}`);
        return errorResponse(400, "invalid_email", EMAIL_MESSAGES[email.reason], cors);
      }
      const key = await clientKey(info.clientAddress ?? "unknown");
      const result = await fromStorage(() =>
        subscriptions.signup({
          email: email.email,
          consentSource: consentSource(request),
          now: now(),
          limits: config,
          confirmTokenTtlHours: config.confirmTokenTtlHours,
          clientKey: key,
        }),
      );
      info.note?.(`pending:${result.decision.reason}`);
      return jsonResponse(200, { status: "pending" }, cors);
    },
  };
}
