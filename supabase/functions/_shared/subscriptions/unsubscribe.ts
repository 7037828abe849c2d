/**
 * `unsubscribe`: from the landing page a mail's link opened, or the mail provider's one-click
 * post (RFC 8058: `?token=` and `List-Unsubscribe=One-Click`, no auth, no cookies). Idempotent.
 */
import { type FunctionSpec, fromStorage } from "../http/function-wrapper.ts";
import { errorResponse, jsonResponse } from "../http/responses.ts";
import { type LinkHandlerDeps, readTokenHash } from "./link-token.ts";
import { perMinuteLimit } from "../http/per-minute-limit.ts";

export function unsubscribe(deps: LinkHandlerDeps): FunctionSpec {
  return {
    name: "unsubscribe",
    admit: perMinuteLimit(deps.rateLimit, "unsubscribe", deps.perMinute, deps.now),
    async handle(call) {
      const read = await readTokenHash(call, { oneClick: true });
      if (read instanceof Response) return read;
      const result = await fromStorage(() => deps.subscriptions.unsubscribe(read.tokenHash, deps.now()));
      call.info.note?.(result);
      if (result === "unknown")
        return errorResponse(404, "unknown_token", "This unsubscribe link is not valid.", call.cors);
      return jsonResponse(200, { status: "unsubscribed" }, call.cors);
    },
  };
}
