import { ConfigError, configWarnings, parseConfig } from "../config.ts";

describe("configuration", () => {
  it("works with nothing set, for the local stack on its port", () => {
    const config = parseConfig({}, "http://localhost:8123");
    expect(config).toMatchObject({
      siteUrl: "http://localhost:8123",
      functionsUrl: "http://localhost:8123/functions/v1",
      allowedOrigins: ["http://localhost:8123"],
      newsletterName: "Effect of the Day",
      brandName: "The Purpose Effect",
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
      NEWSLETTER_NAME: "Daily Spark",
    });
    expect(config.siteUrl).toBe("https://thepurposeeffect.example");
    expect(config.allowedOrigins).toEqual(["https://thepurposeeffect.example", "https://preview.example"]);
    expect(config.rateLimitPerMinute).toBe(30);
    expect(config.resendCooldownSeconds).toBe(0);
    expect(config.listId).toBe("Daily Spark <daily-spark.thepurposeeffect.example>");
    expect(config.mailFrom).toBe("Daily Spark <newsletter@thepurposeeffect.example>");
  });

  it("refuses values it cannot use instead of falling back silently", () => {
    expect(() => parseConfig({ RATE_LIMIT_PER_MINUTE: "ten" })).toThrow(ConfigError);
    expect(() => parseConfig({ RATE_LIMIT_PER_MINUTE: "0" })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => parseConfig({ SITE_URL: "thepurposeeffect.example" })).toThrow(/SITE_URL/);
    expect(() => parseConfig({ ALLOWED_ORIGINS: "*" })).toThrow(/ALLOWED_ORIGINS/);
  });

  it("warns when the one-click unsubscribe address is not https outside this machine", () => {
    expect(configWarnings(parseConfig({ SITE_URL: "http://thepurposeeffect.example" }))).toEqual([
      expect.stringContaining("not https"),
    ]);
  });
});
