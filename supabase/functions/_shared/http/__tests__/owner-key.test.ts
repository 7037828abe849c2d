/**
 * The owner's key, as `send-effect` and `mail-events/dsn` both check it: the scheme in any case,
 * the key itself exactly.
 */
import { checkOwnerKey } from "../owner-key.ts";

const headers = (authorization?: string) => new Headers(authorization === undefined ? {} : { authorization });

describe("the owner's key", () => {
  it("accepts the key after Bearer, whatever the scheme's case (RFC 9110, 11.1)", async () => {
    for (const value of [
      "Bearer s3cret-key",
      "bearer s3cret-key",
      "BEARER s3cret-key",
      "Bearer  s3cret-key ",
    ])
      expect(await checkOwnerKey(headers(value), "s3cret-key")).toBe("ok");
  });

  it("says missing when no bearer key came, and wrong for any other key", async () => {
    for (const value of [undefined, "", "Bearer", "Bearer ", "Basic s3cret-key", "s3cret-key"])
      expect(await checkOwnerKey(headers(value), "s3cret-key")).toBe("missing");
    for (const value of [
      "Bearer s3cret-kez",
      "Bearer S3CRET-KEY",
      "Bearer s3cret-key-and-more",
      "Bearer s3cret",
    ])
      expect(await checkOwnerKey(headers(value), "s3cret-key")).toBe("wrong");
  });

  it("accepts nothing when no key is configured", async () => {
    expect(await checkOwnerKey(headers("Bearer anything"), undefined)).toBe("wrong");
    expect(await checkOwnerKey(headers("Bearer anything"), "")).toBe("wrong");
  });
});
