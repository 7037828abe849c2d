/**
 * The envelope sender of every mail to a subscriber over SMTP (VERP): `bounces+<token>@mail.example`
 * from `BOUNCE_ADDRESS`, where `<token>` names the mail (its kind), its subscriber (their id) and
 * the day it was sent, under a key of its own, `BOUNCE_TOKEN_KEY`. A returned mail comes back to
 * that address, so the `dsn` route can tell a report about our own mail to one reader from anything
 * else posted to it (`mail-events/report-trust.ts`).
 *
 * The token is 44 characters of base32 in lower case (RFC 4648's alphabet, no padding): some MTAs
 * lower-case local parts, so case must carry nothing. With `+`, the bounce address's own local part
 * may have up to 19 characters, within the 64 of RFC 5321. Its 220 bits are
 *
 *     tag (80 bits) | sealed (140 bits: kind 3, day 9, subscriber id 128)
 *
 * - `tag` is an HMAC-SHA256, truncated, of the kind, the whole day number (days since 1970, UTC)
 *   and the id, under a key derived from BOUNCE_TOKEN_KEY: changing any character fails it;
 * - `sealed` is kind, day and id XOR a keystream, the HMAC-SHA256 of the tag under a second derived
 *   key: the id is not in the token, and the same reader's tokens of other days or kinds share
 *   nothing. This is SIV (RFC 5297's construction: the tag is the IV), deterministic authenticated
 *   encryption, which needs no nonce of its own. AES-GCM would: its 12-byte nonce and 16-byte tag
 *   with the 16-byte id are 44 bytes, 71 characters, past the 64 of a local part.
 * - Only the day's low 9 bits travel; the reader takes the latest day up to tomorrow with those
 *   bits, and the tag covers the whole day number, so a token older than 511 days reads as another
 *   day and fails. It is accepted for `BOUNCE_TOKEN_MAX_AGE_DAYS` (below).
 *
 * Rotation: `BOUNCE_TOKEN_PREVIOUS_KEY` is tried after the key, for reading only, so mail sent
 * before a change of key keeps its tokens; after the tokens' age it can go.
 *
 * Tokens of the first version (until this change: the kind and the id in clear, signed with
 * DSN_WEBHOOK_SECRET, no day) are still read with DSN_WEBHOOK_SECRET until `LEGACY_TOKENS_UNTIL`,
 * so mail sent just before an upgrade keeps its bounces; they cannot be told apart by their form
 * (44 characters too), only by their tag. After that date that reading can be deleted.
 *
 * Synchronous (`node:crypto`, which Deno has too): the address is made while a mail is built and
 * read while a report's fields are searched, neither of which awaits.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** The kinds of mail a subscriber gets, one number each in the token (3 bits: up to 7). */
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
  /** `BOUNCE_TOKEN_KEY`: makes and reads the tokens. */
  key: string;
  /** `BOUNCE_TOKEN_PREVIOUS_KEY`: reads tokens made before the key changed. */
  previousKey?: string | null;
  /** `DSN_WEBHOOK_SECRET`: reads first-version tokens until `LEGACY_TOKENS_UNTIL`. */
  legacyKey?: string | null;
}

/** What a valid token says. */
export interface BounceTokenClaim {
  mail: BounceMailKind;
  subscriberId: string;
}

/**
 * How long a token is believed. A bounce comes back within days: RFC 5321 §4.5.4.1 has a sender
 * give up after 4 to 5 days, so the last delay notice and the failure arrive within a week of the
 * mail; a feedback-loop complaint, within days of the reader's click. 30 days covers those, a
 * forwarding hop that fails later, and an inbound route that was down a fortnight and is replayed.
 * Past it, a report naming a reader is more likely an old mail's report replayed than news, and it
 * must not be able to suppress them: it changes nothing. (A complaint about an older mail is still
 * matched by the unsubscribe token in its List-Unsubscribe.)
 */
export const BOUNCE_TOKEN_MAX_AGE_DAYS = 30;
/**
 * The last day first-version tokens are read: this change's day (2026-11-27), plus the tokens'
 * age for mail sent just before an upgrade, plus a month to deploy it.
 */
export const LEGACY_TOKENS_UNTIL = Date.UTC(2027, 0, 31);

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const TAG_BYTES = 10;
const DAY_BITS = 9;
/** tag (10 bytes) and sealed (17.5 bytes): 220 bits, in 28 bytes whose last 4 bits stay zero. */
const TOKEN_BYTES = 28;
/** 5 bits a character: every character carries data, so every spelling is the only one. */
export const BOUNCE_TOKEN_LENGTH = 44;
/** The longest local part a bounce address may have: RFC 5321 allows 64, less `+` and the token. */
export const MAX_BOUNCE_LOCAL_PART = 64 - 1 - BOUNCE_TOKEN_LENGTH;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY_MS = 86_400_000;

/** Base32 of `bytes`, `length` characters (the bits past them are zero). */
function base32(bytes: Uint8Array, length: number): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** The bytes of base32 `text`, the last ones padded with zero bits; null for another character. */
function fromBase32(text: string, size: number): Uint8Array | null {
  const bytes = new Uint8Array(size);
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const char of text) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return null;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes[index++] = (buffer >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  if (bits > 0 && index < size) bytes[index] = (buffer << (8 - bits)) & 0xff;
  return bytes;
}

const idBytes = (subscriberId: string): Uint8Array =>
  Uint8Array.from(subscriberId.replace(/-/g, "").match(/../g) ?? [], (hex) => parseInt(hex, 16));
function idText(bytes: Uint8Array): string {
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
const kindOf = (value: number): BounceMailKind | undefined =>
  (Object.keys(BOUNCE_MAIL_KINDS) as BounceMailKind[]).find((kind) => BOUNCE_MAIL_KINDS[kind] === value);

/** Hex text: Node's HMAC takes a string key several times faster than bytes, and Deno's the same. */
interface DerivedKeys {
  tag: string;
  stream: string;
}
const derived = new Map<string, DerivedKeys>();

/** The two keys a token key gives, one for the tag and one for the keystream (made once a key). */
function derivedKeys(key: string): DerivedKeys {
  let keys = derived.get(key);
  if (!keys) {
    keys = {
      tag: createHmac("sha256", key).update("bounce-token v2 tag").digest("hex"),
      stream: createHmac("sha256", key).update("bounce-token v2 stream").digest("hex"),
    };
    derived.set(key, keys);
  }
  return keys;
}

/** The tag over the kind, the whole day number and the id. */
function tagOf(keys: DerivedKeys, kind: number, day: number, id: Uint8Array): Uint8Array {
  const header = new Uint8Array([kind, day >>> 24, (day >>> 16) & 0xff, (day >>> 8) & 0xff, day & 0xff]);
  return createHmac("sha256", keys.tag).update(header).update(id).digest().subarray(0, TAG_BYTES);
}

/** The 18 bytes that seal kind, day and id (the last 4 bits zero), from the tag. */
function keystream(keys: DerivedKeys, tag: Uint8Array): Uint8Array {
  const stream = createHmac("sha256", keys.stream)
    .update(tag)
    .digest()
    .subarray(0, TOKEN_BYTES - TAG_BYTES);
  stream[stream.length - 1] &= 0xf0;
  return stream;
}

const dayNumber = (at: Date): number => Math.floor(at.getTime() / DAY_MS);

/** The token for one mail to one subscriber, made `at` (its day is in it). */
export function bounceToken(key: string, claim: BounceTokenClaim, at: Date = new Date()): string {
  if (!UUID.test(claim.subscriberId)) throw new Error("not a subscriber id");
  const keys = derivedKeys(key);
  const kind = BOUNCE_MAIL_KINDS[claim.mail];
  const day = dayNumber(at);
  const id = idBytes(claim.subscriberId);
  const tag = tagOf(keys, kind, day, id);
  // kind (3 bits), the day's low 9 bits, the id (128 bits), 4 zero bits: 18 bytes.
  const low = day % 2 ** DAY_BITS;
  const sealed = new Uint8Array(TOKEN_BYTES - TAG_BYTES);
  sealed[0] = (kind << 5) | (low >> 4);
  sealed[1] = ((low & 15) << 4) | (id[0] >> 4);
  for (let index = 1; index < 16; index++) sealed[index + 1] = ((id[index - 1] & 15) << 4) | (id[index] >> 4);
  sealed[17] = (id[15] & 15) << 4;
  const stream = keystream(keys, tag);
  const token = new Uint8Array(TOKEN_BYTES);
  token.set(tag);
  for (let index = 0; index < sealed.length; index++)
    token[TAG_BYTES + index] = sealed[index] ^ stream[index];
  return base32(token, BOUNCE_TOKEN_LENGTH);
}

/** A token's claim under one key, or null: forged, another key's, or older than its age. */
function openToken(key: string, token: Uint8Array, today: number): BounceTokenClaim | null {
  const keys = derivedKeys(key);
  const tag = token.subarray(0, TAG_BYTES);
  const stream = keystream(keys, tag);
  const sealed = token.subarray(TAG_BYTES).map((byte, index) => byte ^ stream[index]);
  const kind = sealed[0] >> 5;
  const low = ((sealed[0] & 31) << 4) | (sealed[1] >> 4);
  const id = new Uint8Array(16);
  for (let index = 0; index < 16; index++)
    id[index] = ((sealed[index + 1] & 15) << 4) | (sealed[index + 2] >> 4);
  // The latest day up to tomorrow (a clock a little ahead) whose low bits these are.
  const latest = today + 1;
  const day = latest - ((latest - low) % 2 ** DAY_BITS);
  if (!timingSafeEqual(tagOf(keys, kind, day, id), tag)) return null;
  const mail = kindOf(kind);
  if (!mail || today - day > BOUNCE_TOKEN_MAX_AGE_DAYS) return null;
  return { mail, subscriberId: idText(id) };
}

/** A first-version token (kind, id and an HMAC with DSN_WEBHOOK_SECRET, no day), or null. */
function openLegacyToken(key: string, token: Uint8Array): BounceTokenClaim | null {
  // 27 bytes and 4 zero bits: any other last character is no such token.
  if (token[27] !== 0) return null;
  const payload = token.subarray(0, 17);
  const mac = createHmac("sha256", `bounce-token\n${key}`).update(payload).digest().subarray(0, 10);
  if (!timingSafeEqual(mac, token.subarray(17, 27))) return null;
  const mail = kindOf(payload[0]);
  return mail ? { mail, subscriberId: idText(payload.subarray(1)) } : null;
}

/**
 * What a token says (any letter case) when one of the settings' keys made it within its age, else
 * null: the key, then the previous key, then a first-version token before `LEGACY_TOKENS_UNTIL`.
 */
export function readBounceToken(
  settings: Pick<BounceSettings, "key" | "previousKey" | "legacyKey">,
  token: string,
  at: Date = new Date(),
): BounceTokenClaim | null {
  const text = token.toLowerCase();
  if (text.length !== BOUNCE_TOKEN_LENGTH) return null;
  const bytes = fromBase32(text, TOKEN_BYTES);
  if (!bytes) return null;
  const today = dayNumber(at);
  for (const key of [settings.key, settings.previousKey]) {
    const claim = key ? openToken(key, bytes, today) : null;
    if (claim) return claim;
  }
  return settings.legacyKey && at.getTime() < LEGACY_TOKENS_UNTIL
    ? openLegacyToken(settings.legacyKey, bytes)
    : null;
}

/** `bounces+<token>@mail.example`: the envelope sender of one mail to one subscriber, sent `at`. */
export const bounceAddress = (
  settings: BounceSettings,
  claim: BounceTokenClaim,
  at: Date = new Date(),
): string => `${settings.local}+${bounceToken(settings.key, claim, at)}@${settings.domain}`;

/**
 * The subscriber a `bounces+<token>@mail.example` address names (in any letter case), or null for
 * any other address, a token for another key, one past its age, or one changed in any character.
 */
export function claimOfAddress(
  settings: BounceSettings,
  address: string,
  at: Date = new Date(),
): BounceTokenClaim | null {
  const bare = address.trim().replace(/^<|>$/g, "");
  const sign = bare.lastIndexOf("@");
  if (sign < 0 || bare.slice(sign + 1).toLowerCase() !== settings.domain) return null;
  const local = bare.slice(0, sign);
  const prefix = `${settings.local}+`;
  if (local.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return null;
  return readBounceToken(settings, local.slice(prefix.length), at);
}

/**
 * `BOUNCE_ADDRESS` as set (`bounces@mail.example`), checked: one address, no `+` of its own, a
 * local part short enough for the token. A text saying why when it is not one (never the value).
 */
export function parseBounceAddress(value: string): { local: string; domain: string } | string {
  const match = /^([A-Za-z0-9._-]+)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)$/.exec(value);
  if (!match)
    return "it is not a plain address like bounces@mail.example (letters, digits, . _ - before the @)";
  if (match[1].length > MAX_BOUNCE_LOCAL_PART)
    return `its part before the @ is longer than ${MAX_BOUNCE_LOCAL_PART} characters: with +<token> it would pass the 64 of RFC 5321`;
  return { local: match[1], domain: match[2].toLowerCase() };
}
