/**
 * `npm run doctor` against a DNS stand-in on loopback (DNS on the internet cannot be reached
 * here): what the owner reads for a domain that is ready, and for each thing receivers would hold
 * against it (no SPF, SPF without the transport, DKIM missing, DMARC p=none or absent, a bounce
 * address on another domain), and for settings a function would refuse to start with. The
 * deployed functions it calls are this checkout's, served in-process by the local stack; Deno
 * behind the stand-in for Supabase's gateway as Supabase serves them; and, for each thing the
 * doctor must catch, the gateway with a config.toml that deploys them wrongly.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { runDoctor } from "../doctor.ts";
import { FOREIGN_ORIGIN, probeOf, REQUEST_TIMEOUT_MS, SITE_CALLS } from "../doctor-functions.ts";
import { FUNCTIONS, hostedRequirements } from "../../supabase/functions/_shared/hosts.ts";
import { TRANSPORTS } from "../../supabase/functions/_shared/mail/transports.ts";
import { testPostgresUrl } from "../../test/support/databases.ts";
import { type DnsStandIn, startDnsStandIn, type Zone } from "../../test/support/dns-stand-in.ts";
import { freePort } from "../../test/support/free-port.ts";
import { serveOnLoopback } from "../../test/support/loopback-http.ts";
import { startProcess, typeScript } from "../../test/support/process.ts";
import { type SupabaseGateway, startSupabaseGateway } from "../../test/support/supabase-gateway.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

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

const SITE_ORIGIN = "https://www.purpose.example";

/** The manifest's functions as the doctor lists them, in its order, but for those `except` names. */
const functionNames = (...except: string[]) =>
  FUNCTIONS.map((entry) => entry.name)
    .filter((name) => !except.includes(name))
    .join(", ");
/** The functions a transport's settings stop: each starts with its feature, which may send mail. */
const mailingFunctions = FUNCTIONS.filter((entry) => hostedRequirements([entry.feature]).mail)
  .map((entry) => entry.name)
  .join(", ");
/** What the site calls from the browser, as the doctor names it (`cms-auth/token`), but for `except`. */
const siteCalls = (...except: string[]) =>
  SITE_CALLS.map((route) => route.slice(route.indexOf("/") + 1))
    .filter((call) => !except.some((name) => call === name || call.startsWith(`${name}/`)))
    .join(", ");

/** This checkout's functions, served by the local stack in this process, allowing the site's origin. */
let functions: TestStack;
beforeAll(async () => {
  functions = await startTestStack("PGlite", { ALLOWED_ORIGINS: SITE_ORIGIN });
});
afterAll(async () => {
  await functions?.close();
});
const functionsUrl = () => `${functions.url}/functions/v1`;

/** The functions' settings on a hosted project, complete; the doctor calls the functions above. */
const hostedEnv = (): Record<string, string> => ({
  SUPABASE_URL: "https://abcdefghijklmnop.supabase.co",
  DOCTOR_FUNCTIONS_URL: functionsUrl(),
  SITE_URL: SITE_ORIGIN,
  MAIL_FROM: "Effect of the Day <newsletter@purpose.example>",
  RESEND_API_KEY: "re_test_1234567890",
  SEND_EFFECT_KEY: "k".repeat(40),
  CMS_GITHUB_CLIENT_ID: "Iv1.0123456789abcdef",
  CMS_GITHUB_CLIENT_SECRET: "s".repeat(40),
  BOUNCE_ADDRESS: "bounces@mail.purpose.example",
  DSN_WEBHOOK_SECRET: "d".repeat(40),
  BOUNCE_TOKEN_KEY: "b".repeat(40),
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
    const run = await execFileAsync(process.execPath, typeScript("scripts/doctor.ts"), {
      cwd: ROOT,
      // Blank, not unset: a .env in the checkout fills only what the environment leaves unset.
      env: {
        PATH: process.env.PATH,
        ...Object.fromEntries(
          [...TRANSPORTS.map((row) => row.variable), "ALLOWED_ORIGINS", "FUNCTIONS_URL", "DKIM_SELECTOR"].map(
            (name) => [name, ""],
          ),
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
    expect(run.stdout).toMatch(
      new RegExp(`^✓ settings +all ${FUNCTIONS.length} functions start with these settings$`, "m"),
    );
    // The report pads the check's column; one space is enough to read it here.
    const lines = run.stdout.replace(/ {2,}/g, " ");
    expect(lines).toContain(
      `✓ functions all ${FUNCTIONS.length} functions answer at ${functionsUrl()} without a token: verify_jwt is off, as the manifest says`,
    );
    expect(lines).toContain(
      `✓ CORS ${SITE_ORIGIN} may call ${siteCalls()} from the browser, another origin may not`,
    );
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
        // Every function reads ALLOWED_ORIGINS; send-effect's first refusal is its missing key.
        expect.stringMatching(
          new RegExp(
            `^fail ${functionNames("send-effect")} would not start: ALLOWED_ORIGINS's 1st entry is not https`,
          ),
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
        text: `${mailingFunctions} would not start: SMTP_URL and RESEND_API_KEY are both set: mail goes through one transport; unset all but one`,
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

/**
 * A worker for the gateway stand-in, in a process of its own as the gateway wants (it watches a
 * worker's CPU and memory by its pid): it relays each request to `TARGET`, this checkout's
 * functions; with ANY_ORIGIN set it answers every preflight for any origin, as a demo-grade
 * function does.
 */
const RELAY = `
const http = require("node:http");
const { TARGET, ANY_ORIGIN, PORT } = process.env;
http.createServer((request, response) => {
  const upstream = http.request(TARGET + request.url, { method: request.method, headers: request.headers }, (answer) => {
    const headers = { ...answer.headers };
    if (ANY_ORIGIN && request.method === "OPTIONS") headers["access-control-allow-origin"] = "*";
    response.writeHead(answer.statusCode, headers);
    answer.pipe(response);
  });
  upstream.on("error", (error) => response.writeHead(502).end(String(error)));
  request.pipe(upstream);
}).listen(Number(PORT), "127.0.0.1", () => console.log("Listening on " + PORT));
`;

const REAL_CONFIG = readFileSync(path.resolve(__dirname, "../../supabase/config.toml"), "utf8");

describe("npm run doctor on the deployed functions", () => {
  let gateway: SupabaseGateway | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /**
   * The stand-in for Supabase's gateway with `config` as the deployed config.toml, in front of
   * this checkout's functions; `boot` may refuse to start a function's worker.
   */
  async function deployed(
    config: string,
    options: { anyOrigin?: boolean; boot?: (name: string) => void } = {},
  ): Promise<string> {
    dir = mkdtempSync(path.join(tmpdir(), "doctor-gateway-"));
    writeFileSync(path.join(dir, "config.toml"), config);
    gateway = await startSupabaseGateway({
      configToml: path.join(dir, "config.toml"),
      workerFor: (name) => (options.boot ? name : "functions"),
      startWorker: async (name) => {
        options.boot?.(name);
        const port = await freePort();
        const worker = await startProcess(process.execPath, ["-e", RELAY], {
          cwd: dir as string,
          env: {
            ...process.env,
            PORT: String(port),
            TARGET: functions.url,
            ANY_ORIGIN: options.anyOrigin ? "1" : "",
          },
          ready: /Listening on/,
        });
        return {
          url: `http://127.0.0.1:${port}`,
          pid: worker.child.pid as number,
          stop: () => worker.stop(),
        };
      },
    });
    return `${gateway.url}/functions/v1`;
  }

  const calling = (url: string, env: Record<string, string | undefined> = {}) =>
    doctor(readyZone(), { ...hostedEnv(), DOCTOR_FUNCTIONS_URL: url, ...env });

  (testPostgresUrl() ? it : it.skip)(
    "passes the functions as Supabase's gateway serves them from this checkout, on Deno",
    async () => {
      const stack = await startTestStack(
        "Deno behind Supabase's gateway",
        { ALLOWED_ORIGINS: SITE_ORIGIN },
        testPostgresUrl(),
      );
      try {
        const url = `${stack.url}/functions/v1`;
        const result = await calling(url);
        expect(result.line("functions")).toEqual([
          {
            level: "ok",
            check: "functions",
            text: `all ${FUNCTIONS.length} functions answer at ${url} without a token: verify_jwt is off, as the manifest says`,
          },
        ]);
        expect(result.line("CORS")).toEqual([
          expect.objectContaining({
            level: "ok",
            text: `${SITE_ORIGIN} may call ${siteCalls()} from the browser, another origin may not`,
          }),
        ]);
        expect(result.exitCode).toBe(0);
      } finally {
        await stack.close();
      }
    },
  );

  it("probes every function with a method its route refuses, a function without a POST route too", () => {
    expect(FUNCTIONS.map((entry) => [entry.name, probeOf(entry)])).toContainEqual([
      "mail-events",
      { method: "GET", path: "/mail-events/doctor" },
    ]);
    expect(probeOf({ routes: ["GET /reader-count", "GET /reader-count/:day"] })).toEqual({
      method: "POST",
      path: "/reader-count",
    });
  });

  it("names a function deployed with verify_jwt on and one not deployed, with the command for each", async () => {
    const config = REAL_CONFIG.replace(
      /(\[functions\.send-confirmation\]\n)verify_jwt = false/,
      "$1verify_jwt = true",
    ).replace(/\n[^\n]*\n\[functions\.cms-auth\][^[]*$/, "\n");
    expect(config).toContain("[functions.send-confirmation]\nverify_jwt = true");
    expect(config).not.toContain("cms-auth");
    const url = await deployed(config);
    const result = await calling(url);
    expect(result.line("functions")).toEqual([
      expect.objectContaining({
        level: "ok",
        text: `${functionNames("send-confirmation", "cms-auth")} answer at ${url} without a token: verify_jwt is off, as the manifest says`,
      }),
      {
        level: "fail",
        check: "functions",
        text: 'send-confirmation has verify_jwt on: Supabase\'s gateway answered a call without a token itself (401 "Missing authorization header"), so a caller without a Supabase JWT never reaches it',
        fix: "npx supabase functions deploy send-confirmation with this checkout's supabase/config.toml, which sets verify_jwt = false for it",
      },
      {
        level: "warn",
        check: "functions",
        text: 'cms-auth answers 404 NOT_FOUND "Requested function was not found": it is not deployed',
        fix: "deploy it: npx supabase functions deploy cms-auth",
      },
    ]);
    // CORS is checked where the function answers, and says nothing of the two above.
    expect(result.line("CORS")).toEqual([
      expect.objectContaining({
        level: "ok",
        text: `${SITE_ORIGIN} may call ${siteCalls("send-confirmation", "cms-auth")} from the browser, another origin may not`,
      }),
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.report).toContain("→ deploy it: npx supabase functions deploy cms-auth");
  });

  it("says a function that does not start answers 5xx, and where its logs are", async () => {
    const url = await deployed(REAL_CONFIG, {
      boot: (name) => {
        if (name === "send-effect") throw new Error("SEND_EFFECT_KEY must be set on Supabase");
      },
    });
    const result = await calling(url);
    expect(result.line("functions")).toEqual([
      expect.objectContaining({
        level: "ok",
        text: expect.stringMatching(/^send-confirmation, .*, cms-auth answer/),
      }),
      {
        level: "fail",
        check: "functions",
        text: 'send-effect answers 502 BOOT_ERROR "Error: SEND_EFFECT_KEY must be set on Supabase": it does not start or run',
        fix: "its logs say why (Supabase's dashboard → Edge Functions → send-effect → Logs); the settings lines above show what it would refuse to start with",
      },
    ]);
    expect(result.exitCode).toBe(1);
  });

  it("refuses a site origin the functions do not allow, and functions that allow any", async () => {
    // These settings name a second origin that the deployed functions were not given.
    const apex = "https://purpose.example";
    const narrow = await calling(functionsUrl(), { ALLOWED_ORIGINS: `${SITE_ORIGIN},${apex}` });
    expect(narrow.line("CORS")).toEqual([
      {
        level: "fail",
        check: "CORS",
        text: `${apex} may not call ${siteCalls()} from the browser: its preflight is answered 204 without Access-Control-Allow-Origin`,
        fix: `the functions allow the origins of their own ALLOWED_ORIGINS, else SITE_URL: set them on Supabase as here, npx supabase secrets set ALLOWED_ORIGINS=${SITE_ORIGIN},${apex}`,
      },
    ]);
    expect(narrow.exitCode).toBe(1);
    await dns?.stop();

    const url = await deployed(REAL_CONFIG, { anyOrigin: true });
    const open = await calling(url);
    expect(open.line("CORS")).toEqual([
      expect.objectContaining({
        level: "fail",
        text: `${siteCalls()} let any site call them from the browser: a preflight from ${FOREIGN_ORIGIN} is allowed`,
      }),
    ]);
    expect(open.exitCode).toBe(1);
  });

  it("reports functions it cannot reach, and gives up on a silent server within its time", async () => {
    const port = await freePort();
    const nobody = `http://127.0.0.1:${port}/functions/v1`;
    const refused = await calling(nobody);
    expect(refused.line("functions")).toEqual([
      expect.objectContaining({
        level: "fail",
        text: `${functionNames()} at ${nobody}: connect ECONNREFUSED 127.0.0.1:${port}`,
        fix: expect.stringContaining("SUPABASE_URL"),
      }),
    ]);
    expect(refused.line("CORS")).toEqual([]);
    await dns?.stop();

    // Takes every request and never answers.
    const silent = await serveOnLoopback(() => new Promise(() => undefined));
    try {
      const started = Date.now();
      const held = await calling(`${silent.url}/functions/v1`);
      expect(Date.now() - started).toBeLessThan(2 * REQUEST_TIMEOUT_MS);
      expect(held.line("functions")).toEqual([
        expect.objectContaining({
          level: "fail",
          text: expect.stringMatching(/: no answer within 5 s$/),
        }),
      ]);
    } finally {
      await silent.close();
    }
  });

  it("calls no function without SUPABASE_URL or at a local one unless asked to, and says so", async () => {
    const unset = await doctor(readyZone(), {
      ...hostedEnv(),
      SUPABASE_URL: undefined,
      DOCTOR_FUNCTIONS_URL: undefined,
    });
    expect(unset.line("functions")).toEqual([
      {
        level: "warn",
        check: "functions",
        text: "the deployed functions were not called: SUPABASE_URL is not set",
        fix: "run it with SUPABASE_URL=https://<ref>.supabase.co",
      },
    ]);
    await dns?.stop();

    // The local stack would answer there: the doctor must not take it for the project.
    const local = functions.url;
    const result = await doctor(readyZone(), {
      ...hostedEnv(),
      SUPABASE_URL: local,
      DOCTOR_FUNCTIONS_URL: undefined,
    });
    expect(result.line("functions")).toEqual([
      {
        level: "warn",
        check: "functions",
        text: `the deployed functions were not called: SUPABASE_URL is ${local}, not a hosted project's https address`,
        fix: `to call these, run it with DOCTOR_FUNCTIONS_URL=${local}/functions/v1; for the project's, SUPABASE_URL=https://<ref>.supabase.co`,
      },
    ]);
    expect(result.line("CORS")).toEqual([]);
  });
});
