import { configWarnings, parseConfig } from "../../config.ts";
import {
  bounceAddress,
  BOUNCE_TOKEN_LENGTH,
  BOUNCE_TOKEN_MAX_AGE_DAYS,
  claimOfAddress,
  LEGACY_TOKENS_UNTIL,
  MAX_BOUNCE_LOCAL_PART,
  readBounceToken,
} from "../bounce-token.ts";

const KEY = "bounce-token-key-for-the-tests-0123456789";
const DSN_SECRET = "dsn-secret-for-the-tests-0123456789abcdef";
const settings = { local: "bounces", domain: "mail.example", key: KEY };
const ann = "0b9f3c2e-6d41-4a8e-9c1f-2e7b5a3d8f10";
const bob = "7d2a9e41-03b8-4c6f-a512-9e8d7c6b5a40";
const now = new Date("2026-11-27T12:00:00Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
const tokenOf = (address: string) => address.slice(address.indexOf("+") + 1, address.indexOf("@"));

/** The token's 220 bits, as text of 0 and 1. */
const bitsOf = (token: string) =>
  [...token]
    .map((char) => "abcdefghijklmnopqrstuvwxyz234567".indexOf(char).toString(2).padStart(5, "0"))
    .join("");

describe("the bounce token (VERP)", () => {
  it("names the mail and its subscriber in a local part of at most 64 characters, lower case only", () => {
    const address = bounceAddress(settings, { mail: "effect", subscriberId: ann }, now);
    expect(address).toMatch(/^bounces\+[a-z2-7]{44}@mail\.example$/);
    expect(BOUNCE_TOKEN_LENGTH).toBe(44);
    expect(`${"x".repeat(MAX_BOUNCE_LOCAL_PART)}+${"t".repeat(BOUNCE_TOKEN_LENGTH)}`).toHaveLength(64);
    expect(claimOfAddress(settings, address, now)).toEqual({ mail: "effect", subscriberId: ann });
    // An MTA that lower- or upper-cases the whole address changes nothing.
    expect(claimOfAddress(settings, address.toUpperCase(), now)).toEqual({
      mail: "effect",
      subscriberId: ann,
    });
    expect(claimOfAddress(settings, `<${address}>`, now)).toEqual({ mail: "effect", subscriberId: ann });
  });

  it("differs per subscriber, per kind of mail and per day", () => {
    const tokens = [
      bounceAddress(settings, { mail: "effect", subscriberId: ann }, now),
      bounceAddress(settings, { mail: "effect", subscriberId: bob }, now),
      bounceAddress(settings, { mail: "confirmation", subscriberId: ann }, now),
      bounceAddress(settings, { mail: "welcome", subscriberId: ann }, now),
      bounceAddress(settings, { mail: "effect", subscriberId: ann }, daysAgo(1)),
    ];
    expect(new Set(tokens).size).toBe(5);
    expect(claimOfAddress(settings, tokens[2], now)).toEqual({ mail: "confirmation", subscriberId: ann });
  });

  it("reveals no id: the reader's id is in none of its bits, and their tokens share no run", () => {
    const idBits = [...ann.replace(/-/g, "")]
      .map((hex) => parseInt(hex, 16).toString(2).padStart(4, "0"))
      .join("");
    const tokens = (["confirmation", "reminder", "welcome", "effect"] as const).flatMap((mail) =>
      [0, 1, 2].map((day) => tokenOf(bounceAddress(settings, { mail, subscriberId: ann }, daysAgo(day)))),
    );
    for (const token of tokens) {
      expect(token).not.toContain(ann.replace(/-/g, "").slice(0, 8));
      // Not at any bit offset, nor any 40-bit piece of it (a chance run of 40 is 1 in 10^10).
      for (let start = 0; start + 40 <= idBits.length; start += 8)
        expect(bitsOf(token)).not.toContain(idBits.slice(start, start + 40));
    }
    // Two mails to one reader have no 6 characters in common at the same place.
    for (const [index, token] of tokens.entries())
      for (const other of tokens.slice(index + 1))
        for (let start = 0; start + 6 <= token.length; start++)
          expect(other.slice(start, start + 6)).not.toBe(token.slice(start, start + 6));
  });

  it("refuses a token changed in any one character, made with another key, or at another address", () => {
    const address = bounceAddress(settings, { mail: "effect", subscriberId: ann }, now);
    const token = tokenOf(address);
    for (let index = 0; index < token.length; index++)
      for (const other of "abcdefghijklmnopqrstuvwxyz234567".replace(token[index], "")) {
        const changed = `${token.slice(0, index)}${other}${token.slice(index + 1)}`;
        expect(readBounceToken(settings, changed, now)).toBeNull();
      }
    expect(readBounceToken({ key: `${KEY}-other` }, token, now)).toBeNull();
    expect(readBounceToken(settings, token.slice(1), now)).toBeNull();
    expect(readBounceToken(settings, `${token}a`, now)).toBeNull();
    expect(readBounceToken(settings, token.replace(/[a-z]/, "1"), now)).toBeNull();
    expect(claimOfAddress(settings, address.replace("@mail.example", "@evil.example"), now)).toBeNull();
    expect(claimOfAddress(settings, address.replace("bounces+", "other+"), now)).toBeNull();
    expect(claimOfAddress(settings, "bounces@mail.example", now)).toBeNull();
  });

  it("is believed for its age and not a day more, however old", () => {
    const sentAt = (at: Date) => tokenOf(bounceAddress(settings, { mail: "effect", subscriberId: ann }, at));
    expect(BOUNCE_TOKEN_MAX_AGE_DAYS).toBe(30);
    expect(readBounceToken(settings, sentAt(daysAgo(30)), now)).toEqual({
      mail: "effect",
      subscriberId: ann,
    });
    expect(readBounceToken(settings, sentAt(daysAgo(31)), now)).toBeNull();
    // Only the day's low bits travel: a year and a half later they come round again, and fail.
    for (const days of [365, 511, 512, 513, 1024, 5000])
      expect(readBounceToken(settings, sentAt(daysAgo(days)), now)).toBeNull();
    // A sender's clock a little ahead: tomorrow's token is read; one from further on is not.
    expect(readBounceToken(settings, sentAt(daysAgo(-1)), now)).not.toBeNull();
    expect(readBounceToken(settings, sentAt(daysAgo(-2)), now)).toBeNull();
  });

  it("still reads mail sent with the previous key after a rotation, never with a key it was not given", () => {
    const old = bounceAddress(settings, { mail: "welcome", subscriberId: bob }, daysAgo(3));
    const rotated = { ...settings, key: "a-new-bounce-token-key-0123456789abcdef", previousKey: KEY };
    expect(claimOfAddress(rotated, old, now)).toEqual({ mail: "welcome", subscriberId: bob });
    // New mail is made with the new key only.
    const fresh = bounceAddress(rotated, { mail: "effect", subscriberId: bob }, now);
    expect(claimOfAddress({ ...settings, key: rotated.key }, fresh, now)).not.toBeNull();
    expect(claimOfAddress(settings, fresh, now)).toBeNull();
    // Once the previous key is unset, the old mail's tokens are not read.
    expect(claimOfAddress({ ...settings, key: rotated.key }, old, now)).toBeNull();
  });

  it("reads a token of the first version (signed with DSN_WEBHOOK_SECRET) only with it, and only until the transition ends", () => {
    // Made by the first version for ann's Effect, with DSN_SECRET.
    const first = "bounces+aqfz6pbonvauvdu4d4xhwwr5r4iebvuxvhyqrjejzjjq@mail.example";
    const withLegacy = { ...settings, legacyKey: DSN_SECRET };
    expect(claimOfAddress(withLegacy, first, now)).toEqual({ mail: "effect", subscriberId: ann });
    expect(claimOfAddress(withLegacy, first, new Date(LEGACY_TOKENS_UNTIL - 1))).not.toBeNull();
    expect(claimOfAddress(withLegacy, first, new Date(LEGACY_TOKENS_UNTIL))).toBeNull();
    expect(claimOfAddress(settings, first, now)).toBeNull();
    expect(claimOfAddress({ ...withLegacy, legacyKey: `${DSN_SECRET}-rotated` }, first, now)).toBeNull();
    // And never is a new token read as a first-version one.
    const second = bounceAddress(settings, { mail: "effect", subscriberId: ann }, daysAgo(40));
    expect(claimOfAddress({ ...withLegacy, key: "x".repeat(32) }, second, now)).toBeNull();
  });
});

describe("BOUNCE_ADDRESS", () => {
  const keys = { DSN_WEBHOOK_SECRET: DSN_SECRET, BOUNCE_TOKEN_KEY: KEY };

  it("is read with BOUNCE_TOKEN_KEY as its key, the previous key and DSN_WEBHOOK_SECRET for reading", () => {
    const config = parseConfig({ BOUNCE_ADDRESS: "Bounces@Mail.Example", ...keys });
    expect(config.bounce).toEqual({
      local: "Bounces",
      domain: "mail.example",
      key: KEY,
      previousKey: null,
      legacyKey: DSN_SECRET,
    });
    expect(config.mailEvents.bounce).toEqual(config.bounce);
    const previous = "p".repeat(32);
    expect(
      parseConfig({ BOUNCE_ADDRESS: "bounces@mail.example", ...keys, BOUNCE_TOKEN_PREVIOUS_KEY: previous })
        .bounce?.previousKey,
    ).toBe(previous);
    expect(parseConfig({}).bounce).toBeNull();
  });

  it("refuses an address it cannot use, and one without its keys", () => {
    expect(() => parseConfig({ BOUNCE_ADDRESS: "bounces@mail.example", BOUNCE_TOKEN_KEY: KEY })).toThrow(
      /^BOUNCE_ADDRESS is set but DSN_WEBHOOK_SECRET is not/,
    );
    expect(() =>
      parseConfig({ BOUNCE_ADDRESS: "bounces@mail.example", DSN_WEBHOOK_SECRET: DSN_SECRET }),
    ).toThrow(/^BOUNCE_ADDRESS is set but BOUNCE_TOKEN_KEY is not/);
    for (const value of [
      "bounces",
      "a b@mail.example",
      "bounces+x@mail.example",
      "bounces@localhost",
      `${"b".repeat(20)}@mail.example`,
    ])
      expect(() => parseConfig({ BOUNCE_ADDRESS: value, ...keys })).toThrow(/^BOUNCE_ADDRESS: /);
  });

  it("refuses a token key that is short, is the dsn route's secret, or a previous key without a key", () => {
    const address = { BOUNCE_ADDRESS: "bounces@mail.example", DSN_WEBHOOK_SECRET: DSN_SECRET };
    expect(() => parseConfig({ ...address, BOUNCE_TOKEN_KEY: "short" })).toThrow(
      /^BOUNCE_TOKEN_KEY must be at least 32 characters/,
    );
    expect(() => parseConfig({ ...address, BOUNCE_TOKEN_KEY: DSN_SECRET })).toThrow(
      "BOUNCE_TOKEN_KEY must not be DSN_WEBHOOK_SECRET: give the tokens a key of their own",
    );
    expect(() =>
      parseConfig({ ...address, BOUNCE_TOKEN_KEY: KEY, BOUNCE_TOKEN_PREVIOUS_KEY: "short" }),
    ).toThrow(/^BOUNCE_TOKEN_PREVIOUS_KEY must be at least 32 characters/);
    expect(() => parseConfig({ BOUNCE_TOKEN_PREVIOUS_KEY: KEY })).toThrow(
      /^BOUNCE_TOKEN_PREVIOUS_KEY is set but BOUNCE_TOKEN_KEY is not/,
    );
  });

  it("warns when the dsn route is on without it", () => {
    const config = parseConfig({ DSN_WEBHOOK_SECRET: DSN_SECRET });
    expect(config.mailEvents.snsAllowSignatureV1).toBe(false);
    expect(config.bounce).toBeNull();
    expect(configWarnings(config)).toEqual([expect.stringContaining("BOUNCE_ADDRESS is not")]);
    expect(parseConfig({ SNS_ALLOW_SIGNATURE_V1: "1" }).mailEvents.snsAllowSignatureV1).toBe(true);
    expect(() => parseConfig({ SNS_ALLOW_SIGNATURE_V1: "yes" })).toThrow(/SNS_ALLOW_SIGNATURE_V1/);
  });
});
