/**
 * The token GitHub issued, between the callback and the site's page that finishes the sign-in:
 * kept at most a minute, under the SHA-256 of a one-time code, sealed with AES-GCM by a key made
 * from that code. The code itself is only in the popup's address fragment, so the database alone
 * never yields a token; a code is taken once.
 */
import type { SqlExecutor } from "../db/sql-executor.ts";

const encoder = new TextEncoder();

async function keyFrom(code: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest("SHA-256", encoder.encode(`cms-auth handoff\0${code}`));
  return crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

/** `token` sealed for `code`: base64 of a fresh 12-byte IV and the ciphertext. */
export async function seal(token: string, code: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await keyFrom(code), encoder.encode(token)),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return toBase64(out);
}

export async function openSealed(sealed: string, code: string): Promise<string> {
  const bytes = fromBase64(sealed);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12) },
    await keyFrom(code),
    bytes.slice(12),
  );
  return new TextDecoder().decode(plain);
}

export function createHandoffStore(db: SqlExecutor) {
  return {
    async put(codeHash: string, sealed: string, expiresAt: Date, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.query("delete from cms_auth_handoffs where expires_at < $1", [now]);
        await tx.query("insert into cms_auth_handoffs (code_hash, sealed, expires_at) values ($1, $2, $3)", [
          codeHash,
          sealed,
          expiresAt,
        ]);
      });
    },
    /** The sealed token, once, while it has not expired; null otherwise. */
    async take(codeHash: string, now: Date): Promise<string | null> {
      const rows = await db.query<{ sealed: string; expires_at: Date | string }>(
        "delete from cms_auth_handoffs where code_hash = $1 returning sealed, expires_at",
        [codeHash],
      );
      const row = rows[0];
      if (!row || new Date(row.expires_at).getTime() <= now.getTime()) return null;
      return row.sealed;
    },
  };
}
