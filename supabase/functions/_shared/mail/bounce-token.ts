/**
 * The envelope sender of every mail to a subscriber over SMTP (VERP): `bounces+<token>@mail.example`
 * from `BOUNCE_ADDRESS`, where `<token>` names the mail (its kind) and its subscriber (their id),
 * signed with an HMAC-SHA256 keyed by `DSN_WEBHOOK_SECRET`. A returned mail comes back to that
 * address, so the `dsn` route can tell a report about our own mail to one reader from anything
 * else posted to it (`mail-events/report-trust.ts`).
 *
 * The token is base32 in lower case (RFC 4648's alphabet, no padding): some MTAs lower-case local
 * parts, so case carries nothing. 1 byte of kind, the 16 bytes of the subscriber's UUID and 10 bytes
 * (80 bits) of MAC make 44 characters; with `+` the bounce address's own local part may have up to
 * 19 characters, within the 64 of RFC 5321.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** The kinds of mail a subscriber gets, one letter each in the token. */
export const BOUNCE_MAIL_KINDS = {
  confirmation: 1,
  reminder: 2,
  welcome: 3,
  effect: 4,
} as const;
export type BounceMailKind = keyof typeof BOUNCE_MAIL_KINDS;

export interface BounceSettings {
  /** `bounces` of `bounces@mail.example`, as set. */
  local: string;
  /** `mail.example`, lower case. */
  domain: string;
  /** The HMAC key: `DSN_WEBHOOK_SECRET`. */
  key: string;
}

/** What a valid token says. */
export interface BounceTokenClaim {
  mail: BounceMailKind;
  subscriberId: string;
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const MAC_BYTES = 10;
const TOKEN_BYTES = 1 + 16 + MAC_BYTES;
export const BOUNCE_TOKEN_LENGTH = Math.ceil((TOKEN_BYTES * 8) / 5);
/** The longest local part a bounce address may have: RFC 5321 allows 64, less `+` and the token. */
export const MAX_BOUNCE_LOCAL_PART = 64 - 1 - BOUNCE_TOKEN_LENGTH;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

function fromBase32(text: string): Uint8Array | null {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return null;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(bytes);
}

const mac = (key: string, payload: Uint8Array): Uint8Array =>
  new Uint8Array(createHmac("sha256", `bounce-token\n${key}`).update(payload).digest()).slice(0, MAC_BYTES);

/** The token for one mail to one subscriber. */
export function bounceToken(key: string, claim: BounceTokenClaim): string {
  if (!UUID.test(claim.subscriberId)) throw new Error(`not a subscriber id: ${claim.subscriberId}`);
  const payload = new Uint8Array(17);
  payload[0] = BOUNCE_MAIL_KINDS[claim.mail];
  const hex = claim.subscriberId.replace(/-/g, "");
  for (let index = 0; index < 16; index++)
    payload[1 + index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  const token = new Uint8Array(TOKEN_BYTES);
  token.set(payload);
  token.set(mac(key, payload), payload.length);
  return base32(token);
}

/** What a token says when its MAC is right (any letter case), else null. */
export function readBounceToken(key: string, token: string): BounceTokenClaim | null {
  const text = token.toLowerCase();
  if (text.length !== BOUNCE_TOKEN_LENGTH) return null;
  const bytes = fromBase32(text);
  // Canonical only: the last character's unused bits are zero, so one token has one spelling.
  if (!bytes || bytes.length !== TOKEN_BYTES || base32(bytes) !== text) return null;
  const payload = bytes.slice(0, 17);
  if (!timingSafeEqual(mac(key, payload), bytes.slice(17))) return null;
  const mail = (Object.keys(BOUNCE_MAIL_KINDS) as BounceMailKind[]).find(
    (kind) => BOUNCE_MAIL_KINDS[kind] === payload[0],
  );
  if (!mail) return null;
  const hex = Array.from(payload.slice(1), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return {
    mail,
    subscriberId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  };
}

/** `bounces+<token>@mail.example`: the envelope sender of one mail to one subscriber. */
export const bounceAddress = (settings: BounceSettings, claim: BounceTokenClaim): string =>
  `${settings.local}+${bounceToken(settings.key, claim)}@${settings.domain}`;

/**
 * The subscriber a `bounces+<token>@mail.example` address names (in any letter case), or null for
 * any other address, a token for another key, or one changed in any character.
 */
export function claimOfAddress(settings: BounceSettings, address: string): BounceTokenClaim | null {
  const bare = address.trim().replace(/^<|>$/g, "");
  const at = bare.lastIndexOf("@");
  if (at < 0 || bare.slice(at + 1).toLowerCase() !== settings.domain) return null;
  const local = bare.slice(0, at);
  const prefix = `${settings.local}+`;
  if (local.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return null;
  return readBounceToken(settings.key, local.slice(prefix.length));
}

/**
 * `BOUNCE_ADDRESS` as set (`bounces@mail.example`), checked: one address, no `+` of its own, a
 * local part short enough for the token. A text saying why when it is not one.
 */
export function parseBounceAddress(value: string): { local: string; domain: string } | string {
  const match = /^([A-Za-z0-9._-]+)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)$/.exec(value);
  if (!match)
    return "it is not a plain address like bounces@mail.example (letters, digits, . _ - before the @)";
  if (match[1].length > MAX_BOUNCE_LOCAL_PART)
    return `its part before the @ is longer than ${MAX_BOUNCE_LOCAL_PART} characters: with +<token> it would pass the 64 of RFC 5321`;
  return { local: match[1], domain: match[2].toLowerCase() };
}
