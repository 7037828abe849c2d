/**
 * The token a confirm or unsubscribe link carries, read from the request: `{"token": "..."}` as
 * JSON, or (one-click unsubscribe, RFC 8058) `?token=` with the form body
 * `List-Unsubscribe=One-Click`. Answers 400 or 415 for anything else, and hashes a well-formed
 * token for the lookup.
 */
import type { Call } from "../http/function-wrapper.ts";
import { errorResponse, mediaType, parseJsonObject } from "../http/responses.ts";
import { isWellFormedToken, sha256Hex } from "./tokens.ts";
import type { RateLimit } from "./rate-limit.ts";
import type { Subscriptions } from "./subscriber-store.ts";

/** What the two mail-link functions (confirm, unsubscribe) are built from. */
export interface LinkHandlerDeps {
  subscriptions: Subscriptions;
  rateLimit: RateLimit;
  /** Calls per client and minute: generous (a household's clicks, a provider's one-click posts), but bounded. */
  perMinute: number;
  now: () => Date;
}

export async function readTokenHash(
  { request, body, cors, info }: Call,
  options: { oneClick: boolean },
): Promise<{ tokenHash: string } | Response> {
  const type = mediaType(request);
  const queryToken = new URL(request.url).searchParams.get("token");
  let token: unknown;
  if (type === "application/json") {
    const parsed = parseJsonObject(body, cors);
    if (!parsed.ok) return parsed.response;
    token = parsed.value.token ?? queryToken;
  } else {
    const form =
      type === "" || type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
    if (!(options.oneClick && queryToken !== null && form)) {
      return errorResponse(415, "unsupported_media_type", "Send the request body as application/json.", cors);
    }
    let oneClick = false;
    try {
      const contentType = request.headers.get("content-type") || "application/x-www-form-urlencoded";
      const fields = await new Response(body, { headers: { "Content-Type": contentType } }).formData();
      oneClick = fields.get("List-Unsubscribe") === "One-Click";
    } catch {
      oneClick = false;
    }
    if (!oneClick) {
      return errorResponse(
        400,
        "invalid_body",
        "A one-click unsubscribe must post List-Unsubscribe=One-Click.",
        cors,
      );
    }
    token = queryToken;
  }
  if (!isWellFormedToken(token)) {
    info.note?.("invalid_token");
    return errorResponse(
      400,
      "invalid_token",
      "The link is incomplete. Please open it again from the mail.",
      cors,
    );
  }
  return { tokenHash: await sha256Hex(token) };
}
