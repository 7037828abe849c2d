import { ConfigError, configWarnings, parseConfig } from "../config.ts";
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
    expect(settings.mailFrom).toBe("Daily Spark <newsletter@thepurposeeffect.example>");
  });

  it("refuses values it cannot use instead of falling back silently", () => {
    expect(() => parseConfig({ RATE_LIMIT_PER_MINUTE: "ten" })).toThrow(ConfigError);
    expect(() => parseConfig({ RATE_LIMIT_PER_MINUTE: "0" })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => parseConfig({ SITE_URL: "thepurposeeffect.example" })).toThrow(/SITE_URL/);
    expect(() => parseConfig({ ALLOWED_ORIGINS: "*" })).toThrow(/ALLOWED_ORIGINS/);
    expect(() => parseConfig({ MAX_BODY_BYTES: "100" })).toThrow(
      'MAX_BODY_BYTES must be a number from 256 to 1000000 (got "100")',
    );
  });

  it("refuses an allowed origin without its scheme, which would allow the origin null", () => {
    for (const entry of ["localhost:8000", "thepurposeeffect.example", "null", "file:///tmp/page.html"]) {
      expect(() => parseConfig({ ALLOWED_ORIGINS: `https://thepurposeeffect.example, ${entry}` })).toThrow(
        new RegExp(`ALLOWED_ORIGINS holds "${entry.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}"`),
      );
    }
  });

  it("warns when the one-click unsubscribe address is not https outside this machine", () => {
    expect(configWarnings(parseConfig({ SITE_URL: "http://thepurposeeffect.example" }))).toEqual([
      expect.stringContaining("not https"),
    ]);
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
      "ALLOWED_ORIGINS holds http://b.example: on Supabase the site's origins must be https (or on this machine: localhost)",
    );
    expect(() => parseConfig({ ...hosted, SITE_URL: "http://www.example.com" })).toThrow(
      "SITE_URL gives the origin http://www.example.com: on Supabase the site's origins must be https (or on this machine: localhost)",
    );
    expect(
      parseConfig({ ...hosted, ALLOWED_ORIGINS: "https://a.example,http://localhost:8000" }).allowedOrigins,
    ).toEqual(["https://a.example", "http://localhost:8000"]);
  });

  it("refuses an http CMS_GITHUB_URL off loopback, and takes a stand-in on loopback", () => {
    const github = { CMS_GITHUB_CLIENT_ID: "Iv1.0123", CMS_GITHUB_CLIENT_SECRET: "s".repeat(40) };
    expect(() => parseConfig({ ...hosted, ...github, CMS_GITHUB_URL: "http://github.example" })).toThrow(
      /CMS_GITHUB_URL is http:\/\/github\.example: on Supabase it must be https/,
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
  it("sends for 50 seconds a call, and refuses every call, unless told otherwise", () => {
    expect(parseSendingConfig({})).toMatchObject({ key: null, secondsPerCall: 50 });
  });

  it("refuses SEND_EFFECT_SECONDS it cannot use instead of falling back to 50", () => {
    for (const bad of ["fifty", "0", "600"])
      expect(() => parseSendingConfig({ SEND_EFFECT_SECONDS: bad })).toThrow(
        /SEND_EFFECT_SECONDS must be a number from 1 to 140/,
      );
  });
});
