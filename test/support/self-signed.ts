/**
 * A throwaway RSA key and self-signed certificate made by `openssl`: SNS's signing certificate in
 * the mail-event tests, the bench's HTTPS front for 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface SelfSigned {
  /** PEM */
  key: string;
  /** PEM */
  cert: string;
}

/** `subject` such as "/CN=127.0.0.1"; `extra` more `openssl req` arguments (e.g. `-addext`). */
export function selfSignedCertificate(subject: string, extra: string[] = []): SelfSigned {
  const dir = mkdtempSync(path.join(tmpdir(), "self-signed-"));
  try {
    try {
      execFileSync(
        "openssl",
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem"].concat(
          ["-days", "2", "-subj", subject],
          extra,
        ),
        { cwd: dir, stdio: "pipe" },
      );
    } catch (error) {
      throw new Error(
        `openssl could not make a self-signed certificate (apt-get install openssl): ` +
          (error instanceof Error ? error.message : String(error)),
      );
    }
    return {
      key: readFileSync(path.join(dir, "key.pem"), "utf8"),
      cert: readFileSync(path.join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
