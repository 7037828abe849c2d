/**
 * The one check of an owner's key, `ownerKey(key, message)`: the Hono middleware of every route
 * that only the owner's own machinery calls, `send-effect` (pg_cron, `SEND_EFFECT_KEY`) and
 * `mail-events/dsn` (the inbound-mail route, `DSN_WEBHOOK_SECRET`). The key comes as
 * `Authorization: Bearer <key>` (RFC 6750, section 2.1), the scheme's name in any case (RFC 9110,
 * section 11.1). Keys are compared as SHA-256 digests, byte by byte to the end, so neither the
 * time taken nor the key's length tells how much was right. A call without the key is refused with
 * a 401 `unauthorized` (its outcome `unsigned` when no key came, `invalid_bearer` for another key)
 * before its body is read.
 */
import type { MiddlewareHandler } from "hono";
import { sha256Hex } from "../subscriptions/tokens.ts";
import { Refusal } from "./answers.ts";

/** `missing`: no bearer key (or none configured); `wrong`: one that is not the key. */
export type OwnerKeyCheck = "ok" | "missing" | "wrong";

/** Lets the call on with `key` (none configured refuses every call), else refuses it with `message`. */
export function ownerKey(key: string | null, message: string): MiddlewareHandler {
  return async (c, next) => {
    const check = await checkOwnerKey(c.req.raw.headers, key);
    if (check !== "ok")
      throw new Refusal(401, "unauthorized", message, {
        outcome: check === "wrong" ? "invalid_bearer" : "unsigned",
      });
    await next();
  };
}

export async function checkOwnerKey(
  headers: Headers,
  key: string | null | undefined,
): Promise<OwnerKeyCheck> {
  const given = /^bearer +(\S.*)$/i.exec(headers.get("authorization") ?? "")?.[1]?.trim() ?? "";
  if (!given) return "missing";
  if (!key) return "wrong";
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(key)]);
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0 ? "ok" : "wrong";
}
