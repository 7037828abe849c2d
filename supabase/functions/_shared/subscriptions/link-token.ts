/**
 * The token a confirm or unsubscribe link carries, read from the request: `{"token": "..."}` as
 * JSON, or (one-click unsubscribe, RFC 8058) `?token=` with the form body
 * `List-Unsubscribe=One-Click`. Refuses anything else with 400 or 415, and hashes a well-formed
 * token for the lookup.
 */
import { mediaType, parseJsonObject, Refusal } from "../http/answers.ts";
import type { Call } from "../http/function-spec.ts";
import { isWellFormedToken, sha256Hex } from "./tokens.ts";
import type { SubscriberStore } from "./subscriber-store.ts";

/** What the two mail-link functions (confirm, unsubscribe) are built from. */
export interface LinkHandlerDeps {
  subscriptions: SubscriberStore;
  now: () => Date;
}

export async function readTokenHash(
  { request, body }: Call,
  options: { oneClick: boolean },
): Promise<string> {
  const type = mediaType(request);
  const queryToken = new URL(request.url).searchParams.get("token");
  let token: unknown;
  if (type === "application/json") {
    token = parseJsonObject(body).token ?? queryToken;
  } else {
    const form =
      type === "" || type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
    if (!(options.oneClick && queryToken !== null && form))
      throw new Refusal(415, "unsupported_media_type", "Send the request body as application/json.");
    let oneClick = false;
    try {
      const contentType = request.headers.get("content-type") || "application/x-www-form-urlencoded";
      const fields = await new Response(body, { headers: { "Content-Type": contentType } }).formData();
      oneClick = fields.get("List-Unsubscribe") === "One-Click";
    } catch {
      oneClick = false;
    }
    if (!oneClick)
      throw new Refusal(400, "invalid_body", "A one-click unsubscribe must post List-Unsubscribe=One-Click.");
    token = queryToken;
  }
  if (!isWellFormedToken(token))
    throw new Refusal(400, "invalid_token", "The link is incomplete. Please open it again from the mail.");
  return sha256Hex(token);
}
