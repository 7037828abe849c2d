/**
 * `send-confirmation`: a visitor's signup, as JSON from the site's script or as the signup card's
 * plain HTML form. Rate limited per client address before the body is read; the address is
 * checked, stored with its confirmation mail job (and, for a new row, where the signup came from:
 * the optional fields `contract/signup-source.ts` reads, whatever of them passes) in one
 * transaction, and the answer is the same whatever the address's status, so no one learns who is
 * subscribed. A form post is answered with a redirect to one of the site's result pages
 * (`formPost` below; the wrapper applies it).
 */
import type { Config } from "../config.ts";
import {
  FORM_MEDIA_TYPE,
  fromStorage,
  mediaType,
  parseFormObject,
  parseJsonObject,
  Refusal,
} from "../http/answers.ts";
import type { FormPostSpec, FunctionSpec } from "../http/function-spec.ts";
import { SIGNUP_CARD_ANCHOR, SIGNUP_RESULT_PAGES } from "../contract/signup-result-pages.ts";
import { parseSignupSource } from "../contract/signup-source.ts";
import { checkEmail } from "./email-address.ts";
import { clientKey } from "./rate-limit.ts";
import type { SubscriberStore } from "./subscriber-store.ts";

export interface SendConfirmationDeps {
  subscriptions: SubscriberStore;
  config: Config;
  now: () => Date;
}

const EMAIL_MESSAGES = {
  missing: "An e-mail address is required.",
  too_long: "The e-mail address is longer than 254 characters.",
  invalid: "This is not a valid e-mail address.",
} as const;

/** A refused address: its reason is part of the typed answer, so the form post's page can follow it. */
export class InvalidEmail extends Refusal {
  constructor(readonly reason: keyof typeof EMAIL_MESSAGES) {
    super(400, "invalid_email", EMAIL_MESSAGES[reason], { outcome: `invalid_email:${reason}` });
  }
}

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

/**
 * The card's form without JavaScript: the page for each answer the JSON call gets. An empty field
 * goes back to the card, as the inline form with JavaScript does nothing when empty.
 */
export const signupFormPost: FormPostSpec = {
  anchor: SIGNUP_CARD_ANCHOR,
  destination(answer) {
    if (answer.accepted) return SIGNUP_RESULT_PAGES.subscribed;
    const { refusal } = answer;
    if (refusal.status === 429) return SIGNUP_RESULT_PAGES.rateLimited;
    if (refusal instanceof InvalidEmail)
      return refusal.reason === "missing" ? "back-to-form" : SIGNUP_RESULT_PAGES.invalid;
    return SIGNUP_RESULT_PAGES.failed;
  },
};

export function sendConfirmation(deps: SendConfirmationDeps): FunctionSpec {
  const { subscriptions, config, now } = deps;
  return {
    name: "send-confirmation",
    formPost: signupFormPost,
    async handle({ request, body, clientAddress, form }) {
      if (!form && mediaType(request) !== "application/json") {
        throw new Refusal(
          415,
          "unsupported_media_type",
          `Send the request body as application/json or ${FORM_MEDIA_TYPE}.`,
        );
      }
      const fields = form ? parseFormObject(body) : parseJsonObject(body);
      const email = checkEmail(fields.email);
      if (!email.ok) throw new InvalidEmail(email.reason);
      const key = await clientKey(clientAddress);
      const result = await fromStorage(() =>
        subscriptions.signup({
          email: email.email,
          consentSource: consentSource(request),
          source: parseSignupSource(fields),
          now: now(),
          limits: config,
          confirmTokenTtlHours: config.confirmTokenTtlHours,
          clientKey: key,
        }),
      );
      return { body: { status: "pending" }, outcome: `pending:${result.decision.reason}` };
    },
  };
}
