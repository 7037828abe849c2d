/**
 * The local stack's own settings: through the registry, with their defaults, and `.env` filling
 * in what the environment leaves unset (never overriding it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadDotEnv, parseLocalEnv, ROOT } from "../local-env.ts";

describe("the local stack's settings", () => {
  it("have working defaults, and refuse a port that is not one", () => {
    expect(parseLocalEnv({})).toMatchObject({
      port: 8000,
      host: "127.0.0.1",
      dataDir: path.join(ROOT, ".data"),
      publicDir: path.join(ROOT, "public"),
      contentDir: path.join(ROOT, "content"),
      trustedHops: 0,
    });
    expect(parseLocalEnv({ PORT: "" }).port).toBe(8000);
    expect(() => parseLocalEnv({ PORT: "80.5" })).toThrow(
      "PORT must be a whole number from 0 to 65535: it has a fraction",
    );
  });

  it("take what .env says for what the environment leaves unset", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dotenv-"));
    try {
      const file = path.join(dir, ".env");
      writeFileSync(file, "# settings\nPORT=3000\nSMTP_URL='smtps://u:p@mail.example:465'\nHOST=0.0.0.0\n");
      const env: Record<string, string | undefined> = { HOST: "127.0.0.1" };
      expect(loadDotEnv(env, file)).toBe(file);
      expect(env).toEqual({ HOST: "127.0.0.1", PORT: "3000", SMTP_URL: "smtps://u:p@mail.example:465" });
      expect(parseLocalEnv(env).port).toBe(3000);
      expect(loadDotEnv({}, path.join(dir, "missing"))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
