/**
 * `npm run doctor` against a DNS stand-in on loopback (DNS on the internet cannot be reached
 * here): what the owner reads for a domain that is ready, and for each thing receivers would hold
 * against it (no SPF, SPF without the transport, DKIM missing, DMARC p=none or absent, a bounce
 * address on another domain), and for settings a function would refuse to start with.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { runDoctor } from "../doctor.ts";
import { type DnsStandIn, startDnsStandIn, type Zone } from "../../test/support/dns-stand-in.ts";
import { freePort } from "../../test/support/free-port.ts";

const ROOT = path.resolve(__dirname, "../..");
const execFileAsync = promisify(execFile);

/** A DKIM key longer than one DNS string (255): the stand-in splits it, the doctor joins it. */
const KEY = `MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${"x".repeat(260)}IDAQAB`;

/** purpose.example, set up for Resend as Resend's domain page says, and a DMARC that quarantines. */
const readyZone = (): Zone => ({
  "purpose.example": { A: ["192.0.2.10"] },
  "send.purpose.example": {
    TXT: ["v=spf1 include:amazonses.com ~all"],
    MX: [{ exchange: "feedback-smtp.eu-west-1.amazonses.com", priority: 10 }],
  },
  "resend._domainkey.purpose.example": { TXT: [`p=${KEY}`] },
  "_dmarc.purpose.example": { TXT: ["v=DMARC1; p=quarantine; rua=mailto:dmarc@purpose.example"] },
  "smtp.mailhost.example": { A: ["198.51.100.7"] },
  "7.100.51.198.in-addr.arpa": { PTR: ["smtp.mailhost.example"] },
  "s1._domainkey.purpose.example": { TXT: [`v=DKIM1; k=rsa; p=${KEY}`] },
});

/** The functions' settings on a hosted project, complete. */
const hostedEnv = (): Record<string, string> => ({
  SUPABASE_URL: "https://abcdefghijklmnop.supabase.co",
  SITE_URL: "https://www.purpose.example",
  MAIL_FROM: "Effect of the Day <newsletter@purpose.example>",
  RESEND_API_KEY: "re_test_1234567890",
  SEND_EFFECT_KEY: "k".repeat(40),
  CMS_GITHUB_CLIENT_ID: "Iv1.0123456789abcdef",
  CMS_GITHUB_CLIENT_SECRET: "s".repeat(40),
  BOUNCE_ADDRESS: "bounces@mail.purpose.example",
  DSN_WEBHOOK_SECRET: "d".repeat(40),
});

let dns: DnsStandIn | undefined;
afterEach(async () => {
  await dns?.stop();
  dns = undefined;
});

async function doctor(zone: Zone, env: Record<string, string | undefined>) {
  dns = await startDnsStandIn(zone);
  const result = await runDoctor({ ...env, DOCTOR_DNS_SERVERS: dns.server });
  const line = (check: string) => result.findings.filter((finding) => finding.check === check);
  return { ...result, line };
}

describe("npm run doctor", () => {
  it("passes a domain that is ready, with exit code 0 and a ✓ per check", async () => {
    dns = await startDnsStandIn(readyZone());
    const run = await execFileAsync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/doctor.ts"], {
      cwd: ROOT,
      // Blank, not unset: a .env in the checkout fills only what the environment leaves unset.
      env: {
        PATH: process.env.PATH,
        ...Object.fromEntries(
          ["SMTP_URL", "SES_REGION", "ALLOWED_ORIGINS", "FUNCTIONS_URL", "DKIM_SELECTOR"].map((name) => [
            name,
            "",
          ]),
        ),
        ...hostedEnv(),
        DOCTOR_DNS_SERVERS: dns.server,
      },
    });
    expect(run.stdout).toContain("npm run doctor: mail from purpose.example through Resend");
    expect(run.stdout).toMatch(
      /^✓ SPF +send\.purpose\.example: "v=spf1 include:amazonses\.com ~all" covers Resend$/m,
    );
    // The key went out as two DNS strings and is read whole.
    expect(run.stdout).toContain(`✓ DKIM`);
    expect(run.stdout).toContain(`resend._domainkey.purpose.example holds a key (${KEY.length} characters)`);
    expect(run.stdout).toMatch(/^✓ DMARC +_dmarc\.purpose\.example: p=quarantine$/m);
    expect(run.stdout).toMatch(/^✓ BOUNCE_ADDRESS +bounces@mail\.purpose\.example is on purpose\.example$/m);
    expect(run.stdout).toMatch(/^✓ settings +all 6 functions start with these settings$/m);
    expect(run.stdout).not.toMatch(/^[!✗]/m);
    expect(run.stdout.trim().endsWith("Ready to send.")).toBe(true);
    expect(dns.questions).toEqual(expect.arrayContaining(["TXT resend._domainkey.purpose.example"]));
  });

  it("says which SPF record to add when there is none, and exits 1", async () => {
    const zone = readyZone();
    delete zone["send.purpose.example"];
    const result = await doctor(zone, hostedEnv());
    expect(result.exitCode).toBe(1);
    expect(result.line("SPF")).toEqual([
      {
        level: "fail",
        check: "SPF",
        text: "no SPF record at send.purpose.example",
        fix: 'add TXT send.purpose.example "v=spf1 include:amazonses.com ~all"',
      },
      expect.objectContaining({
        level: "fail",
        text: expect.stringContaining("no MX at send.purpose.example"),
      }),
    ]);
    expect(result.report).toMatch(
      /^✗ SPF .*\n +→ add TXT send\.purpose\.example "v=spf1 include:amazonses\.com ~all"$/m,
    );
    expect(result.report).toContain("Not ready: 2 problems block sending.");
  });

  it("names the SMTP server's servers when the SPF record leaves them out, and passes once its IP is in", async () => {
    const env = {
      ...hostedEnv(),
      RESEND_API_KEY: undefined,
      SMTP_URL: "smtps://user:secret@smtp.mailhost.example:465",
      DKIM_SELECTOR: "s1",
    };
    const zone = readyZone();
    zone["mail.purpose.example"] = { TXT: ["v=spf1 include:_spf.other-provider.example -all"] };
    const left = await doctor(zone, env);
    expect(left.exitCode).toBe(1);
    expect(left.line("SPF")).toEqual([
      {
        level: "fail",
        check: "SPF",
        text: 'mail.purpose.example: "v=spf1 include:_spf.other-provider.example -all" does not name the SMTP server smtp.mailhost.example\'s servers, so receivers see a forged sender',
        fix: 'add the include your SMTP provider documents for smtp.mailhost.example (an include: under mailhost.example) or ip4:198.51.100.7 to it, before the "all"',
      },
    ]);
    await dns?.stop();

    zone["mail.purpose.example"] = {
      TXT: ["v=spf1 ip4:198.51.100.0/24 include:_spf.other-provider.example -all"],
    };
    const fixed = await doctor(zone, env);
    expect(fixed.line("SPF")).toEqual([expect.objectContaining({ level: "ok" })]);
    expect(fixed.line("DKIM")).toEqual([
      {
        level: "ok",
        check: "DKIM",
        text: `s1._domainkey.purpose.example holds a key (${KEY.length} characters)`,
      },
    ]);
    expect(fixed.line("reverse DNS")).toEqual([
      {
        level: "ok",
        check: "reverse DNS",
        text: "198.51.100.7 (smtp.mailhost.example) has PTR smtp.mailhost.example, which resolves back to it",
      },
    ]);
    expect(fixed.exitCode).toBe(0);
    await dns?.stop();

    // An IP whose PTR names a host that does not lead back to it: a warning with what to ask for.
    zone["7.100.51.198.in-addr.arpa"] = { PTR: ["static-198-51-100-7.isp.example"] };
    const unconfirmed = await doctor(zone, env);
    expect(unconfirmed.line("reverse DNS")).toEqual([
      expect.objectContaining({
        level: "warn",
        text: "198.51.100.7 (smtp.mailhost.example) has PTR static-198-51-100-7.isp.example, which does not resolve back to it: Gmail refuses mail from such an IP",
      }),
    ]);
    expect(unconfirmed.exitCode).toBe(0);
  });

  it("warns about DMARC p=none without blocking", async () => {
    const zone = readyZone();
    zone["_dmarc.purpose.example"] = { TXT: ["v=DMARC1; p=none; rua=mailto:dmarc@purpose.example"] };
    const result = await doctor(zone, hostedEnv());
    expect(result.line("DMARC")).toEqual([
      expect.objectContaining({ level: "warn", fix: expect.stringContaining("p=quarantine") }),
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.report).toMatch(/^! DMARC +_dmarc\.purpose\.example: p=none/m);
    expect(result.report).toContain("Ready to send (1 warning to look at).");
  });

  it("blocks on a missing DMARC record, with the record to add", async () => {
    const zone = readyZone();
    delete zone["_dmarc.purpose.example"];
    const result = await doctor(zone, hostedEnv());
    expect(result.exitCode).toBe(1);
    expect(result.line("DMARC")).toEqual([
      {
        level: "fail",
        check: "DMARC",
        text: "no DMARC record at _dmarc.purpose.example: Gmail and Yahoo refuse bulk mail without one",
        fix: 'add TXT _dmarc.purpose.example "v=DMARC1; p=none; rua=mailto:dmarc@purpose.example", then move to p=quarantine',
      },
    ]);
  });

  it("finds a subdomain's DMARC policy at its organizational domain", async () => {
    const zone = readyZone();
    const result = await doctor(zone, {
      ...hostedEnv(),
      MAIL_FROM: "newsletter@news.purpose.example",
      BOUNCE_ADDRESS: "",
    });
    expect(result.line("DMARC")).toEqual([
      { level: "ok", check: "DMARC", text: "_dmarc.purpose.example: p=quarantine" },
    ]);
  });

  it("blocks on a DKIM selector that is not published, and says what to check when none is known", async () => {
    const zone = readyZone();
    delete zone["resend._domainkey.purpose.example"];
    const missing = await doctor(zone, hostedEnv());
    expect(missing.exitCode).toBe(1);
    expect(missing.line("DKIM")).toEqual([
      expect.objectContaining({ level: "fail", text: "no DKIM key at resend._domainkey.purpose.example" }),
    ]);
    await dns?.stop();

    const ses = await doctor(readyZone(), {
      ...hostedEnv(),
      RESEND_API_KEY: undefined,
      SES_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret",
      BOUNCE_ADDRESS: "",
    });
    // Its envelope domain is not known either without BOUNCE_ADDRESS: what to set, not a failure.
    expect(ses.line("SPF")).toEqual([
      expect.objectContaining({
        level: "warn",
        fix: expect.stringContaining("MX feedback-smtp.eu-west-1.amazonses.com"),
      }),
    ]);
    expect(ses.line("DKIM")).toEqual([
      expect.objectContaining({
        level: "warn",
        fix: expect.stringContaining("DKIM_SELECTOR=token1,token2,token3"),
      }),
    ]);
  });

  it("checks SES's custom MAIL FROM domain and follows its Easy DKIM CNAMEs to the key", async () => {
    const zone = readyZone();
    zone["tok1._domainkey.purpose.example"] = { CNAME: "tok1.dkim.amazonses.com" };
    zone["tok1.dkim.amazonses.com"] = { TXT: [`p=${KEY}`] };
    // The custom MAIL FROM domain SES's console shows, which BOUNCE_ADDRESS is on.
    zone["mail.purpose.example"] = {
      TXT: ["v=spf1 include:amazonses.com ~all"],
      MX: [{ exchange: "feedback-smtp.eu-west-1.amazonses.com", priority: 10 }],
    };
    const result = await doctor(zone, {
      ...hostedEnv(),
      RESEND_API_KEY: undefined,
      SES_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret",
      DKIM_SELECTOR: "tok1, tok2",
    });
    expect(result.line("SPF")).toEqual([
      expect.objectContaining({
        level: "ok",
        text: expect.stringMatching(/^mail\.purpose\.example: .* covers Amazon SES \(eu-west-1\)$/),
      }),
    ]);
    expect(result.line("DKIM")).toEqual([
      expect.objectContaining({
        level: "ok",
        text: expect.stringContaining("tok1._domainkey.purpose.example"),
      }),
      expect.objectContaining({
        level: "fail",
        text: "no DKIM key at tok2._domainkey.purpose.example",
        fix: "add CNAME tok2._domainkey.purpose.example -> tok2.dkim.amazonses.com",
      }),
    ]);
  });

  it("warns when BOUNCE_ADDRESS is on another domain", async () => {
    const result = await doctor(readyZone(), { ...hostedEnv(), BOUNCE_ADDRESS: "bounces@elsewhere.example" });
    expect(result.line("BOUNCE_ADDRESS")).toEqual([
      expect.objectContaining({
        level: "warn",
        fix: "set BOUNCE_ADDRESS=bounces@mail.purpose.example (and that domain's SPF and MX)",
      }),
    ]);
    expect(result.exitCode).toBe(0);
  });

  it("reports in words the settings a function would refuse to start with", async () => {
    const result = await doctor(readyZone(), {
      ...hostedEnv(),
      SMTP_URL: "smtps://user:secret@smtp.mailhost.example:465",
      ALLOWED_ORIGINS: "http://www.purpose.example",
      SEND_EFFECT_KEY: undefined,
    });
    expect(result.exitCode).toBe(1);
    const texts = result.line("settings").map((finding) => `${finding.level} ${finding.text}`);
    expect(texts).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^fail send-confirmation, confirm-subscription, unsubscribe, mail-events, cms-auth would not start: ALLOWED_ORIGINS holds http:\/\/www\.purpose\.example/,
        ),
        expect.stringMatching(/^fail send-effect would not start: SEND_EFFECT_KEY must be set on Supabase/),
      ]),
    );
    await dns?.stop();

    // The editor's sign-in does not send: without its app it warns, it does not block.
    const noCms = await doctor(readyZone(), {
      ...hostedEnv(),
      CMS_GITHUB_CLIENT_ID: undefined,
      CMS_GITHUB_CLIENT_SECRET: undefined,
    });
    expect(noCms.line("settings")).toEqual([
      expect.objectContaining({
        level: "warn",
        text: expect.stringMatching(
          /^cms-auth would not start: CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET must be set/,
        ),
      }),
    ]);
    expect(noCms.exitCode).toBe(0);
    await dns?.stop();

    const twoTransports = await doctor(readyZone(), {
      ...hostedEnv(),
      SMTP_URL: "smtps://user:secret@smtp.mailhost.example:465",
    });
    expect(twoTransports.line("settings")).toEqual([
      expect.objectContaining({
        level: "fail",
        text: "send-confirmation, confirm-subscription, unsubscribe, send-effect would not start: SMTP_URL and RESEND_API_KEY are both set: mail goes through one transport; unset all but one",
      }),
    ]);
  });

  it("says DNS did not answer rather than calling a record missing", async () => {
    const silent = await freePort(); // nothing listens there: the resolver is refused
    const result = await runDoctor({ ...hostedEnv(), DOCTOR_DNS_SERVERS: `127.0.0.1:${silent}` });
    expect(result.exitCode).toBe(1);
    for (const check of ["SPF", "DKIM", "DMARC"])
      expect(result.findings.filter((finding) => finding.check === check)).toEqual([
        expect.objectContaining({ level: "fail", text: expect.stringMatching(/^DNS did not answer for /) }),
      ]);
  });

  it("warns that the settings were read as the local stack's without the project's address", async () => {
    const env: Record<string, string | undefined> = { ...hostedEnv(), SUPABASE_URL: undefined };
    const result = await doctor(readyZone(), env);
    expect(result.line("settings")[0]).toEqual(
      expect.objectContaining({ level: "warn", text: expect.stringContaining("SUPABASE_URL") }),
    );
  });
});
