/**
 * The `state` of cms-auth's GitHub sign-in: signed, short-lived and bound to the browser that
 * started it. `issueState` makes a random id, an expiry and a random browser nonce; the state
 * (`id.expiry.signature`) travels through GitHub, the nonce stays behind in an HttpOnly cookie.
 * `checkState` accepts the state only with the same browser's cookie, unforged and unexpired; that
 * it is used once is the state store's part (`state-store.ts`). Web Crypto only: Node and Deno alike.
 */

/** How long a sign-in may take from the click to GitHub's redirect back. */
export const STATE_TTL_SECONDS = 600;

export interface IssuedState {
  /** Sent to GitHub, and back: `id.expiry.signature`. */
  state: string;
  /** Kept in the browser's cookie; the signature covers it. */
  browserNonce: string;
  expiresAt: Date;
}

export type StateCheck =
  | { ok: true; id: string; expiresAt: Date }
  | { ok: false; reason: "malformed" | "no_cookie" | "forged" | "expired" };

const encoder = new TextEncoder();

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    // A length no base64 has (4n + 1 characters): malformed, not a bug.
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const randomToken = (): string => base64Url(crypto.getRandomValues(new Uint8Array(16)));

/** The signing key: derived from the OAuth App's client secret, so there is no second secret to set. */
export async function stateKey(clientSecret: string): Promise<CryptoKey> {
  const secret = await crypto.subtle.importKey(
    "raw",
    encoder.encode(clientSecret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const derived = await crypto.subtle.sign("HMAC", secret, encoder.encode("cms-auth state v1"));
  return crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

const signed = (id: string, expiry: number, browserNonce: string) =>
  encoder.encode(`${id}.${expiry}.${browserNonce}`);

export async function issueState(key: CryptoKey, now: Date): Promise<IssuedState> {
  const id = randomToken();
  const browserNonce = randomToken();
  const expiry = Math.floor(now.getTime() / 1000) + STATE_TTL_SECONDS;
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, signed(id, expiry, browserNonce)));
  return {
    state: `${id}.${expiry}.${base64Url(signature)}`,
    browserNonce,
    expiresAt: new Date(expiry * 1000),
  };
}

export async function checkState(
  key: CryptoKey,
  state: string | undefined,
  browserNonce: string | undefined,
  now: Date,
): Promise<StateCheck> {
  const parts = (state ?? "").split(".");
  const signature = parts.length === 3 ? fromBase64Url(parts[2]) : null;
  if (
    parts.length !== 3 ||
    !/^[A-Za-z0-9_-]{16,64}$/.test(parts[0]) ||
    !/^\d{1,12}$/.test(parts[1]) ||
    !signature
  )
    return { ok: false, reason: "malformed" };
  if (!browserNonce) return { ok: false, reason: "no_cookie" };
  const [id, expiryText] = parts;
  const expiry = Number(expiryText);
  // Verified in constant time by Web Crypto, before the expiry it covers is believed.
  if (!(await crypto.subtle.verify("HMAC", key, signature, signed(id, expiry, browserNonce))))
    return { ok: false, reason: "forged" };
  if (expiry * 1000 <= now.getTime()) return { ok: false, reason: "expired" };
  return { ok: true, id, expiresAt: new Date(expiry * 1000) };
}
