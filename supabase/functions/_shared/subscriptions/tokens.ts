/**
 * Link tokens: 32 random bytes, base64url in the link, stored only as a SHA-256 hash so a copy
 * of the database cannot confirm or unsubscribe anyone.
 */

const TOKEN_BYTES = 32;
/** 32 bytes in unpadded base64url. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function newToken(): string {
  const bytes = new Uint8Array(TOKEN_BYTES);
  crypto.getRandomValues(bytes);
  return base64url(bytes);
}

const HEX_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** `bytes` in lower-case hex, two digits a byte: how the hashes of tokens and addresses are kept. */
export function hex(bytes: ArrayBuffer): string {
  let text = "";
  for (const byte of new Uint8Array(bytes)) text += HEX_BYTE[byte];
  return text;
}

export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

export const isWellFormedToken = (token: unknown): token is string =>
  typeof token === "string" && TOKEN_PATTERN.test(token);
