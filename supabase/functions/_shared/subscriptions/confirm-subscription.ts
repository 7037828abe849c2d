/**
 * `confirm-subscription`: the click on the landing page that a confirmation link opened. A
 * pending address becomes confirmed; a second click answers the same; an unknown link is a 404
 * and an expired one a 410, so the page can say which.
 */
import { fromStorage, Refusal } from "../http/answers.ts";
import type { FunctionSpec } from "../http/function-spec.ts";
import { type LinkHandlerDeps, readTokenHash } from "./link-token.ts";

export function confirmSubscription(deps: LinkHandlerDeps): FunctionSpec {
  return {
    name: "confirm-subscription",
    async handle(call) {
      const tokenHash = await readTokenHash(call, { oneClick: false });
      const result = await fromStorage(() => deps.subscriptions.confirm(tokenHash, deps.now()));
      if (result === "unknown")
        throw new Refusal(404, "unknown_token", "This confirmation link is not valid.", { outcome: result });
      if (result === "expired")
        throw new Refusal(410, "expired_token", "This confirmation link has expired. Please sign up again.", {
          outcome: result,
        });
      return { body: { status: "confirmed" }, outcome: result };
    },
  };
}
