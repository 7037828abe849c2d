/**
 * The one check of an owner's key, for every route that only the owner's own machinery calls:
 * `send-effect` (pg_cron, `SEND_EFFECT_KEY`) and `mail-events/dsn` (the inbound-mail route,
 * `DSN_WEBHOOK_SECRET`). The key comes as `Authorization: Bearer <key>` (RFC 6750, section 2.1),
 * the scheme's name in any case (RFC 9110, section 11.1). Keys are compared as SHA-256 digests,
 * byte by byte to the end, so neither the time taken nor the key's length tells how much was right.
 */
import { sha256Hex } from "../subscriptions/tokens.ts";

/** `missing`: no bearer key (or none configured); `wrong`: one that is not the key. */
export type OwnerKeyCheck = "ok" | "missing" | "wrong";

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
