import { configWarnings, parseConfig } from "../../config.ts";
import {
  bounceAddress,
  BOUNCE_TOKEN_LENGTH,
  claimOfAddress,
  MAX_BOUNCE_LOCAL_PART,
  readBounceToken,
} from "../bounce-token.ts";

const SECRET = "dsn-secret-for-the-tests-0123456789abcdef";
const settings = { local: "bounces", domain: "mail.example", key: SECRET };
const ann = "0b9f3c2e-6d41-4a8e-9c1f-2e7b5a3d8f10";
const bob = "7d2a9e41-03b8-4c6f-a512-9e8d7c6b5a40";

describe("the bounce token (VERP)", () => {
  it("names the mail and its subscriber in a local part of at most 64 characters, lower case only", () => {
    const address = bounceAddress(settings, { mail: "effect", subscriberId: ann });
    expect(address).toMatch(/^bounces\+[a-z2-7]{44}@mail\.example$/);
    expect(BOUNCE_TOKEN_LENGTH).toBe(44);
    expect(`${"x".repeat(MAX_BOUNCE_LOCAL_PART)}+${"t".repeat(BOUNCE_TOKEN_LENGTH)}`).toHaveLength(64);
    expect(claimOfAddress(settings, address)).toEqual({ mail: "effect", subscriberId: ann });
    // An MTA that lower- or upper-cases the whole address changes nothing.
    expect(claimOfAddress(settings, address.toUpperCase())).toEqual({ mail: "effect", subscriberId: ann });
    expect(claimOfAddress(settings, `<${address}>`)).toEqual({ mail: "effect", subscriberId: ann });
  });

  it("differs per subscriber and per kind of mail", () => {
    const tokens = [
      bounceAddress(settings, { mail: "effect", subscriberId: ann }),
      bounceAddress(settings, { mail: "effect", subscriberId: bob }),
      bounceAddress(settings, { mail: "confirmation", subscriberId: ann }),
      bounceAddress(settings, { mail: "welcome", subscriberId: ann }),
    ];
    expect(new Set(tokens).size).toBe(4);
    expect(claimOfAddress(settings, tokens[2])).toEqual({ mail: "confirmation", subscriberId: ann });
  });

  it("refuses a token changed in any one character, made with another key, or at another address", () => {
    const address = bounceAddress(settings, { mail: "effect", subscriberId: ann });
    const token = address.slice("bounces+".length, address.indexOf("@"));
    for (let index = 0; index < token.length; index++)
      for (const other of "abcdefghijklmnopqrstuvwxyz234567".replace(token[index], "")) {
        const changed = `${token.slice(0, index)}${other}${token.slice(index + 1)}`;
        expect(readBounceToken(SECRET, changed)).toBeNull();
      }
    expect(readBounceToken(`${SECRET}-rotated`, token)).toBeNull();
    expect(readBounceToken(SECRET, token.slice(1))).toBeNull();
    expect(readBounceToken(SECRET, `${token}a`)).toBeNull();
    expect(readBounceToken(SECRET, token.replace(/[a-z]/, "1"))).toBeNull();
    expect(claimOfAddress(settings, address.replace("@mail.example", "@evil.example"))).toBeNull();
    expect(claimOfAddress(settings, address.replace("bounces+", "other+"))).toBeNull();
    expect(claimOfAddress(settings, "bounces@mail.example")).toBeNull();
  });
});

describe("BOUNCE_ADDRESS", () => {
  it("is read with DSN_WEBHOOK_SECRET as its key", () => {
    const config = parseConfig({ BOUNCE_ADDRESS: "Bounces@Mail.Example", DSN_WEBHOOK_SECRET: SECRET });
    expect(config.bounce).toEqual({ local: "Bounces", domain: "mail.example", key: SECRET });
    expect(config.mailEvents.bounce).toEqual(config.bounce);
    expect(parseConfig({}).bounce).toBeNull();
  });

  it("refuses an address it cannot use, and one without the key", () => {
    expect(() => parseConfig({ BOUNCE_ADDRESS: "bounces@mail.example" })).toThrow(
      /BOUNCE_ADDRESS is set but DSN_WEBHOOK_SECRET is not/,
    );
    for (const value of [
      "bounces",
      "a b@mail.example",
      "bounces+x@mail.example",
      "bounces@localhost",
      `${"b".repeat(20)}@mail.example`,
    ])
      expect(() => parseConfig({ BOUNCE_ADDRESS: value, DSN_WEBHOOK_SECRET: SECRET })).toThrow(
        /^BOUNCE_ADDRESS: /,
      );
  });

  it("warns when the dsn route is on without it", () => {
    const config = parseConfig({ DSN_WEBHOOK_SECRET: SECRET });
    expect(config.mailEvents.snsAllowSignatureV1).toBe(false);
    expect(config.bounce).toBeNull();
    expect(configWarnings(config)).toEqual([expect.stringContaining("BOUNCE_ADDRESS is not")]);
    expect(parseConfig({ SNS_ALLOW_SIGNATURE_V1: "1" }).mailEvents.snsAllowSignatureV1).toBe(true);
    expect(() => parseConfig({ SNS_ALLOW_SIGNATURE_V1: "yes" })).toThrow(/SNS_ALLOW_SIGNATURE_V1/);
  });
});
