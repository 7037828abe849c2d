/**
 * `confirm-subscription`: the click on the landing page that a confirmation link opened. A
 * pending address becomes confirmed; a second click answers the same; an unknown link is a 404
 * and an expired one a 410, so the page can say which.
 */
import { type FunctionSpec, fromStorage } from "../http/function-wrapper.ts";
import { errorResponse, jsonResponse } from "../http/responses.ts";
import { type LinkHandlerDeps, readTokenHash } from "./link-token.ts";
import { perMinuteLimit } from "../http/per-minute-limit.ts";

export function confirmSubscription(deps: LinkHandlerDeps): FunctionSpec {
  return {
    name: "confirm-subscription",
    admit: perMinuteLimit(deps.rateLimit, "confirm-subscription", deps.perMinute, deps.now),
    async handle(call) {
      const read = await readTokenHash(call, { oneClick: false });
      if (read instanceof Response) return read;
      const result = await fromStorage(() => deps.subscriptions.confirm(read.tokenHash, deps.now()));
      call.info.note?.(result);
      if (result === "unknown")
        return errorResponse(404, "unknown_token", "This confirmation link is not valid.", call.cors);
      if (result === "expired") {
        return errorResponse(
          410,
          "expired_token",
          "This confirmation link has expired. Please sign up again.",
          call.cors,
        );
      }
      return jsonResponse(200, { status: "confirmed" }, call.cors);
    },
  };
}
