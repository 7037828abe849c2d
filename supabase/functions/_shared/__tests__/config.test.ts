import { inspect } from "node:util";
import { ConfigError, configWarnings, parseConfig } from "../config.ts";
import { parseUrlSetting } from "../contract/variables.ts";
import { createMailer } from "../mail/create-mailer.ts";
import { parseSendingConfig } from "../effect-sending/sending-config.ts";
import { contentIdentity } from "../../../../test/support/effect-fixtures.ts";
import { mailSettings } from "../mail/list-headers.ts";

describe("configuration", () => {
  it("works with nothing set, for the local stack on its port", () => {
    const config = parseConfig({}, "http://localhost:8123");
    expect(config).toMatchObject({
      siteUrl: "http://localhost:8123",
      functionsUrl: "http://localhost:8123/functions/v1",
      allowedOrigins: ["http://localhost:8123"],
      rateLimitPerMinute: 10,
      resendCooldownSeconds: 60,
      confirmTokenTtlHours: 24,
    });
    expect(configWarnings(config)).toEqual([]);
  });

  it("reads the site, origins and limits from the environment", () => {
    const config = parseConfig({
      SITE_URL: "https://thepurposeeffect.example/",
      ALLOWED_ORIGINS: "https://thepurposeeffect.example, https://preview.example/path",
      RATE_LIMIT_PER_MINUTE: "30",
      RESEND_COOLDOWN_SECONDS: "0",
    });
    expect(config.siteUrl).toBe("https://thepurposeeffect.example");
    expect(config.allowedOrigins).toEqual(["https://thepurposeeffect.example", "https://preview.example"]);
    expect(config.rateLimitPerMinute).toBe(30);
    expect(config.resendCooldownSeconds).toBe(0);
    const settings = mailSettings(config, {
      ...contentIdentity(),
      brandName: "B",
      newsletterName: "Daily Spark",
      timeZone: "UTC",
    });
    expect(settings.listId).toBe("Daily Spark <daily-spark.thepurposeeffect.example>");
    expect(settings.mailFrom).toEqual({
      name: "Daily Spark",
      address: "newsletter@thepurposeeffect.example",
    });
  });

  it("refuses values it cannot use instead of falling back silently", () => {
    expect(() => parseConfig({ RATE_LIMIT_PER_MINUTE: "ten" })).toThrow(ConfigError);
    expect(() => parseConfig({ RATE_LIMIT_PER_MINUTE: "0" })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => parseConfig({ SITE_URL: "thepurposeeffect.example" })).toThrow(/SITE_URL/);
    expect(() => parseConfig({ ALLOWED_ORIGINS: "*" })).toThrow(/ALLOWED_ORIGINS/);
    expect(() => parseConfig({ MAX_BODY_BYTES: "100" })).toThrow(
      "MAX_BODY_BYTES must be a number from 256 to 1000000: it is less than 256",
    );
  });

  it("refuses an allowed origin without its scheme, which would allow the origin null", () => {
    for (const entry of ["localhost:8000", "thepurposeeffect.example", "null", "file:///tmp/page.html"]) {
      expect(() => parseConfig({ ALLOWED_ORIGINS: `https://thepurposeeffect.example, ${entry}` })).toThrow(
        "ALLOWED_ORIGINS's 2nd entry is not an origin like https://example.com (scheme included)",
      );
    }
  });

  it("warns when the one-click unsubscribe address is not https outside this machine", () => {
    expect(configWarnings(parseConfig({ SITE_URL: "http://thepurposeeffect.example" }))).toEqual([
      expect.stringContaining("not https"),
    ]);
  });
});

/**
 * What a setting's error may say: the variable and what is wrong, never the value, which reaches the
 * function's log and may be a secret. The error as a log prints it (`inspect`: Node's URL errors
 * keep the value as `input`) must not hold it either.
 */
describe("a setting it cannot use", () => {
  const refused = (start: () => unknown): Error => {
    try {
      start();
    } catch (error) {
      return error as Error;
    }
    throw new Error("no error");
  };
  const expectRefusedQuietly = (start: () => unknown, value: string, name: RegExp) => {
    const error = refused(start);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(name);
    expect(inspect(error)).not.toContain(value);
  };
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;

  it("is named without its value when it is a URL, a password in it above all", () => {
    // A `/` in the password: Deno's URL parser answered `Invalid URL: 'smtps://user:<password>@…'`.
    const password = "s3cret/with-a-slash";
    expectRefusedQuietly(
      () =>
        createMailer({ SMTP_URL: `smtps://mailer:${password}@smtp.example:465` }, { log, required: true }),
      password,
      /^SMTP_URL is not a URL: .*percent-encoded/,
    );
    expectRefusedQuietly(
      () => createMailer({ SMTP_URL: "https://mailer:hunter2@smtp.example" }, { log, required: true }),
      "hunter2",
      /^SMTP_URL must start with smtp:\/\/ or smtps:\/\/$/,
    );
    expectRefusedQuietly(
      () =>
        createMailer(
          { RESEND_API_KEY: "re_123", RESEND_API_URL: "http://u:hunter2@api.example" },
          { log, required: true },
        ),
      "hunter2",
      /^RESEND_API_URL must be https:\/\//,
    );
    expectRefusedQuietly(
      () => parseConfig({ SITE_URL: "www.private-preview.example" }),
      "private-preview",
      /^SITE_URL is not a URL/,
    );
    expectRefusedQuietly(
      () =>
        parseUrlSetting("DATABASE_URL", `postgresql://app:${password}@db:5432/app`, "a postgresql:// URL"),
      password,
      /^DATABASE_URL is not a URL: a postgresql:\/\/ URL$/,
    );
    // Percent-encoded, the same password is taken.
    expect(
      createMailer(
        { SMTP_URL: `smtps://mailer:${encodeURIComponent(password)}@smtp.example:465` },
        { log, required: true },
      ).description,
    ).toBe("SMTP smtp.example:465 (TLS)");
  });

  it("is named without its value when it is a number", () => {
    expectRefusedQuietly(
      () => parseConfig({ RATE_LIMIT_PER_MINUTE: "12 per minute" }),
      "12 per minute",
      /^RATE_LIMIT_PER_MINUTE must be a number from 1 to \d+: it is not a number$/,
    );
    expectRefusedQuietly(
      () => parseConfig({ MAX_BODY_BYTES: "2000000" }),
      "2000000",
      /^MAX_BODY_BYTES must be a number from 256 to 1000000: it is more than 1000000$/,
    );
  });

  it("is named without its value when it is a secret", () => {
    const secret = "too-short-a-secret";
    expectRefusedQuietly(
      () => parseConfig({ DSN_WEBHOOK_SECRET: secret }),
      secret,
      /^DSN_WEBHOOK_SECRET must be/,
    );
    expectRefusedQuietly(
      () => parseConfig({ RESEND_WEBHOOK_SECRET: `whsec_${secret}!` }),
      secret,
      /^RESEND_WEBHOOK_SECRET must be/,
    );
    expectRefusedQuietly(
      () => parseConfig({ CMS_GITHUB_CLIENT_ID: "Iv1.0123", CMS_GITHUB_CLIENT_SECRET: secret }),
      secret,
      /^CMS_GITHUB_CLIENT_SECRET must be/,
    );
  });
});

describe("the functions' environment on Supabase", () => {
  const hosted = {
    SUPABASE_URL: "https://abcdefgh.supabase.co",
    SITE_URL: "https://thepurposeeffect.example",
  };

  it("points the one-click unsubscribe at the project's functions, not the static site", () => {
    const config = parseConfig(hosted);
    expect(config.functionsUrl).toBe("https://abcdefgh.supabase.co/functions/v1");
    expect(config.siteUrl).toBe("https://thepurposeeffect.example");
    expect(configWarnings(config)).toEqual([]);
  });

  it("keeps an explicit FUNCTIONS_URL", () => {
    const config = parseConfig({
      ...hosted,
      FUNCTIONS_URL: "https://api.thepurposeeffect.example/functions/v1",
    });
    expect(config.functionsUrl).toBe("https://api.thepurposeeffect.example/functions/v1");
  });

  it("refuses an http origin for the site, which would get the signup's CORS and the editor's token", () => {
    expect(() => parseConfig({ ...hosted, ALLOWED_ORIGINS: "https://a.example,http://b.example" })).toThrow(
      "ALLOWED_ORIGINS's 2nd entry is not https: on Supabase each must be a public https origin of the site",
    );
    expect(() => parseConfig({ ...hosted, SITE_URL: "http://www.example.com" })).toThrow(
      "SITE_URL is not https: on Supabase it must be the site's public https address",
    );
  });

  it("refuses an origin on the editor's own machine, where a sign-in code would reach whatever listens", () => {
    for (const origin of [
      "http://localhost:8000",
      "https://localhost:8443",
      "https://app.localhost",
      "http://127.0.0.1:8000",
      "https://127.1.2.3",
      "https://[::1]:8000",
      "https://[::ffff:127.0.0.1]",
      "https://0.0.0.0:8000",
    ]) {
      expect(() => parseConfig({ ...hosted, ALLOWED_ORIGINS: `https://a.example,${origin}` })).toThrow(
        /^ALLOWED_ORIGINS's 2nd entry is (not https|this machine \(loopback\)): on Supabase/,
      );
      expect(() => parseConfig({ ...hosted, SITE_URL: origin })).toThrow(/^SITE_URL is /);
    }
    // Even beside a public ALLOWED_ORIGINS: cms-auth falls back to SITE_URL's origin.
    expect(() =>
      parseConfig({ ...hosted, SITE_URL: "https://localhost", ALLOWED_ORIGINS: "https://a.example" }),
    ).toThrow("SITE_URL is this machine (loopback): on Supabase it must be the site's public https address");
    // The local stack, and a local `supabase functions serve`, keep them.
    expect(
      parseConfig({ ALLOWED_ORIGINS: "http://localhost:8000,http://127.0.0.1:8000" }).allowedOrigins,
    ).toEqual(["http://localhost:8000", "http://127.0.0.1:8000"]);
    expect(
      parseConfig({ SUPABASE_URL: "http://kong:8000", SITE_URL: "http://127.0.0.1:3000" }).allowedOrigins,
    ).toEqual(["http://127.0.0.1:3000"]);
  });

  it("refuses an http CMS_GITHUB_URL off loopback, and takes a stand-in on loopback", () => {
    const github = { CMS_GITHUB_CLIENT_ID: "Iv1.0123", CMS_GITHUB_CLIENT_SECRET: "s".repeat(40) };
    expect(() => parseConfig({ ...hosted, ...github, CMS_GITHUB_URL: "http://github.example" })).toThrow(
      /CMS_GITHUB_URL is http: on Supabase it must be https/,
    );
    expect(
      parseConfig({ ...hosted, ...github, CMS_GITHUB_URL: "http://127.0.0.1:9999" }).cmsAuth?.githubUrl,
    ).toBe("http://127.0.0.1:9999");
  });

  it("counts a local Supabase (supabase functions serve, http) as not hosted", () => {
    const config = parseConfig({ SUPABASE_URL: "http://kong:8000" });
    expect(config.functionsUrl).toBe("http://localhost:8000/functions/v1");
  });
});

describe("send-effect's settings", () => {
  it("sends for 9 seconds a call (the schedule calls every 10), and refuses every call, unless told otherwise", () => {
    expect(parseSendingConfig({})).toMatchObject({ key: null, secondsPerCall: 9 });
  });

  it("refuses SEND_EFFECT_SECONDS it cannot use instead of falling back to 50", () => {
    for (const bad of ["fifty", "0", "600"])
      expect(() => parseSendingConfig({ SEND_EFFECT_SECONDS: bad })).toThrow(
        /SEND_EFFECT_SECONDS must be a number from 1 to 140/,
      );
  });
});
