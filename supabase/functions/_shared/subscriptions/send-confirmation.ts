/**
 * `send-confirmation`: a visitor's signup, as JSON from the site's script or as the signup card's
 * plain HTML form. Rate limited per client address before the body is read; the address is
 * checked, stored with its confirmation mail job in one transaction, and the answer is the same
 * whatever the address's status, so no one learns who is subscribed. A form post is answered
 * with a redirect to one of the site's result pages (`formPost` below; the wrapper applies it).
 */
import type { Config } from "../config.ts";
import { checkEmail, type EmailCheck } from "./email-address.ts";
import { type FormPostSpec, type FunctionSpec, fromStorage } from "../http/function-wrapper.ts";
import {
  errorResponse,
  jsonResponse,
  mediaType,
  parseFormObject,
  parseJsonObject,
} from "../http/responses.ts";
import { clientKey, type RateLimit } from "./rate-limit.ts";
import { SIGNUP_CARD_ANCHOR, SIGNUP_RESULT_PAGES } from "../http/signup-result-pages.ts";
import type { Subscriptions } from "./subscriber-store.ts";
import { perMinuteLimit } from "../http/per-minute-limit.ts";

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

/** The request log's outcome for a refused address, which the form post's page is chosen by too. */
const REFUSED_EMAIL = "invalid_email:";
const refusedEmail = (reason: Extract<EmailCheck, { ok: false }>["reason"]) => `${REFUSED_EMAIL}${reason}`;

/**
 * The card's form without JavaScript: the page for each answer the JSON call gets. An empty field
 * goes back to the card, as the inline form with JavaScript does nothing when empty.
 */
export const signupFormPost: FormPostSpec = {
  anchor: SIGNUP_CARD_ANCHOR,
  destination({ status, outcome }) {
    if (status === 200) return SIGNUP_RESULT_PAGES.subscribed;
    if (status === 429) return SIGNUP_RESULT_PAGES.rateLimited;
    if (outcome === refusedEmail("missing")) return "back-to-form";
    if (outcome?.startsWith(REFUSED_EMAIL)) return SIGNUP_RESULT_PAGES.invalid;
    return SIGNUP_RESULT_PAGES.failed;
  },
};

export function sendConfirmation(deps: SendConfirmationDeps): FunctionSpec {
  const { subscriptions, rateLimit, config, now } = deps;
  const name = "send-confirmation";
  return {
    name,
    admit: perMinuteLimit(rateLimit, name, config.rateLimitPerMinute, now),
    formPost: signupFormPost,
    async handle({ request, body, cors, info, form }) {
      if (!form && mediaType(request) !== "application/json") {
        return errorResponse(
          415,
          "unsupported_media_type",
          "Send the request body as application/json or application/x-www-form-urlencoded.",
          cors,
        );
      }
      const parsed = form ? parseFormObject(body, cors) : parseJsonObject(body, cors);
      if (!parsed.ok) {
        info.note?.(parsed.code);
        return parsed.response;
      }
      const email = checkEmail(parsed.value.email);
      if (!email.ok) {
        info.note?.(refusedEmail(email.reason));
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
