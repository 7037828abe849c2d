/**
 * `unsubscribe`: from the landing page a mail's link opened, or the mail provider's one-click
 * post (RFC 8058: `?token=` and `List-Unsubscribe=One-Click`, no auth, no cookies). Idempotent.
 */
import { fromStorage, Refusal } from "../http/answers.ts";
import type { FunctionSpec } from "../http/function-spec.ts";
import { type LinkHandlerDeps, readTokenHash } from "./link-token.ts";

export function unsubscribe(deps: LinkHandlerDeps): FunctionSpec {
  return {
    name: "unsubscribe",
    async handle(call) {
      const tokenHash = await readTokenHash(call, { oneClick: true });
      const result = await fromStorage(() => deps.subscriptions.unsubscribe(tokenHash, deps.now()));
      if (result === "unknown")
        throw new Refusal(404, "unknown_token", "This unsubscribe link is not valid.", { outcome: result });
      return { body: { status: "unsubscribed" }, outcome: result };
    },
  };
}
