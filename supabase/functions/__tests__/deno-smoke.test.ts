/**
 * The Supabase entries under Deno itself: `deno check` of every entry the manifest names (and the contract suite's Deno host) with the import map
 * Supabase uses (npm packages from the registry, not this repository's node_modules), and
 * `send-confirmation` served by Deno against the test PostgreSQL, answering one signup as JSON and
 * one as the signup card's form post, `send-effect` mailing a day's Effect only to a caller
 * with its key, and `mail-events` taking a signed bounce and a complaint mail (its MIME read under Deno).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { createPostgresExecutor } from "../_shared/db/postgres-executor.ts";
import { migrate } from "../../../server/migrations.ts";
import { createTestDatabase, testPostgresUrl } from "../../../test/support/databases.ts";
import { freePort } from "../../../test/support/free-port.ts";
import { startProcess } from "../../../test/support/process.ts";
import { servePublishedSite } from "../../../test/support/published-site.ts";
import { DENO_ENV, denoExecutable } from "../../../test/support/deno/runtimes.ts";
import { createSmtpCapture } from "../../../test/support/smtp-capture.ts";
import { contentIdentity, fixtureEdition, seedConfirmed } from "../../../test/support/effect-fixtures.ts";
import { dayIn } from "../_shared/contract/calendar-day.ts";
import { FUNCTIONS as FUNCTIONS_MANIFEST, type FunctionName } from "../_shared/manifest.ts";
import { mailEditionPath, SENDER_IDENTITY_PATH } from "../_shared/contract/published.ts";
import {
  arfMail,
  bounceAddressOf,
  DSN_SECRET,
  MAIL_EVENTS_ENV,
  resendBounce,
  resendEvent,
} from "../../../test/support/mail-events.ts";

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, "../../..");
const DENO = denoExecutable("current");
const FUNCTIONS = path.join(ROOT, "supabase/functions");
/** Each function's entry, as the manifest names them. */
const entry = (name: FunctionName) => path.join(FUNCTIONS, name, "index.ts");
const ENTRIES = FUNCTIONS_MANIFEST.map(({ name }) => entry(name));
/** The contract suite's Deno host (test/support/test-stack.ts), checked with the entries. */
const TEST_HOST = path.join(ROOT, "test", "support", "deno", "functions-host.ts");
/** The runtime twin the tests' host runs in behind the gateway (test/support/deno/edge-runtime-twin.ts). */
const TWIN = path.join(ROOT, "test", "support", "deno", "edge-runtime-twin.ts");
const denoEnv = { ...process.env, ...DENO_ENV };

describe("the functions under Deno", () => {
  it("type-check with deno check", async () => {
    const { stderr } = await promisify(execFile)(
      DENO,
      ["check", "--config", path.join(FUNCTIONS, "deno.json"), ...ENTRIES, TEST_HOST, TWIN],
      {
        cwd: ROOT,
        env: denoEnv,
      },
    );
    expect(stderr).not.toMatch(/error/i);
  });

  const postgresUrl = testPostgresUrl();
  (postgresUrl ? it : it.skip)(
    "serve send-confirmation against PostgreSQL and answer a signup, as JSON and as a form",
    async () => {
      const database = await createTestDatabase(postgresUrl as string);
      const db = createPostgresExecutor(database.url, { max: 1 });
      // The site, for what its build publishes: the names the mail carries.
      const site = await servePublishedSite({ [SENDER_IDENTITY_PATH]: contentIdentity() });
      let deno: Awaited<ReturnType<typeof serveUnderDeno>> | undefined;
      try {
        await migrate(db);
        deno = await serveUnderDeno(entry("send-confirmation"), {
          DATABASE_URL: database.url,
          SITE_URL: site.url,
          ALLOWED_ORIGINS: "https://thepurposeeffect.example",
        });
        const { port } = deno;
        const response = await fetch(`http://127.0.0.1:${port}/send-confirmation`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: "https://thepurposeeffect.example",
            "x-forwarded-for": "203.0.113.9",
          },
          body: JSON.stringify({ email: "deno@example.com" }),
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: "pending" });
        expect(response.headers.get("access-control-allow-origin")).toBe("https://thepurposeeffect.example");
        expect(await db.query("select email, status from subscribers")).toEqual([
          { email: "deno@example.com", status: "pending" },
        ]);

        // The signup card without JavaScript: a form post, answered with the site's welcome page.
        const formPost = (origin: string) =>
          fetch(`http://127.0.0.1:${port}/send-confirmation`, {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              origin,
              referer: `${origin}/effects/2026-11-20/`,
              "x-forwarded-for": "203.0.113.9",
            },
            body: "email=deno-form%40example.com",
            redirect: "manual",
          });
        expect((await formPost("https://elsewhere.example")).status).toBe(403);
        const form = await formPost("https://thepurposeeffect.example");
        expect([form.status, form.headers.get("location")]).toEqual([
          303,
          "https://thepurposeeffect.example/newsletter/welcome/",
        ]);
        expect(
          await db.query(
            "select email, status, pending_consent_source from subscribers where email = 'deno-form@example.com'",
          ),
        ).toEqual([
          {
            email: "deno-form@example.com",
            status: "pending",
            pending_consent_source: "https://thepurposeeffect.example/effects/2026-11-20/",
          },
        ]);
        // Without SMTP_URL the function logs the link instead of sending; the job counts as sent.
        const logged = Date.now() + 10_000;
        while (
          !new RegExp(`confirm: ${site.url.replace(/[.]/g, "\\.")}/\\?confirm=[A-Za-z0-9_-]{43}`).test(
            deno.output(),
          )
        ) {
          if (Date.now() > logged) throw new Error(`No confirmation link in the log:\n${deno.output()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await deno?.stop();
        await site.close();
        await db.close();
        await database.drop();
      }
    },
  );
  (postgresUrl ? it : it.skip)(
    "serve mail-events against PostgreSQL: a signed bounce suppresses, a complaint mail unsubscribes, a forged event is refused",
    async () => {
      const database = await createTestDatabase(postgresUrl as string);
      const db = createPostgresExecutor(database.url, { max: 1 });
      const site = await servePublishedSite({ [SENDER_IDENTITY_PATH]: contentIdentity() });
      let deno: Awaited<ReturnType<typeof serveUnderDeno>> | undefined;
      try {
        await migrate(db);
        await seedConfirmed(db, 3);
        deno = await serveUnderDeno(entry("mail-events"), {
          DATABASE_URL: database.url,
          SITE_URL: site.url,
          ...MAIL_EVENTS_ENV,
        });
        const url = (source: string) => `http://127.0.0.1:${deno?.port}/mail-events/${source}`;
        const bounce = await resendEvent(resendBounce("reader1@example.com"));
        const forged = { ...bounce, body: bounce.body.replace("reader1@", "reader3@") };
        const answers = [
          await fetch(url("resend"), { method: "POST", headers: bounce.headers, body: bounce.body }),
          await fetch(url("resend"), { method: "POST", headers: forged.headers, body: forged.body }),
          // Returned to the Effect's envelope sender, bounces+<reader 2's token>@ (VERP).
          await fetch(
            `${url("dsn")}?rcpt=${encodeURIComponent(await bounceAddressOf(db, "reader2@example.com"))}`,
            {
              method: "POST",
              headers: { authorization: `Bearer ${DSN_SECRET}` },
              body: arfMail("reader2@example.com", { inHeadersOnly: true }),
            },
          ),
        ];
        expect(answers.map((answer) => answer.status)).toEqual([200, 401, 200]);
        expect(
          await db.query(
            `select email, status, undeliverable_at is not null as suppressed, unsubscribe_reason from subscribers order by email`,
          ),
        ).toEqual([
          { email: "reader1@example.com", status: "confirmed", suppressed: true, unsubscribe_reason: null },
          {
            email: "reader2@example.com",
            status: "unsubscribed",
            suppressed: false,
            unsubscribe_reason: "complaint",
          },
          { email: "reader3@example.com", status: "confirmed", suppressed: false, unsubscribe_reason: null },
        ]);
      } finally {
        await deno?.stop();
        await site.close();
        await db.close();
        await database.drop();
      }
    },
  );
  (postgresUrl ? it : it.skip)(
    "serve send-effect against PostgreSQL: refused without its key, with it the day's Effect goes out",
    async () => {
      const database = await createTestDatabase(postgresUrl as string);
      const db = createPostgresExecutor(database.url, { max: 1 });
      const smtp = await createSmtpCapture();
      const site = await servePublishedSite({
        [SENDER_IDENTITY_PATH]: contentIdentity(),
        [mailEditionPath(DATE)]: (url: string) => fixtureEdition(DATE, url),
      });
      const siteUrl = site.url;
      await migrate(db);
      await seedConfirmed(db, 3);
      let deno: Awaited<ReturnType<typeof serveUnderDeno>> | undefined;
      try {
        deno = await serveUnderDeno(entry("send-effect"), {
          DATABASE_URL: database.url,
          SITE_URL: siteUrl,
          SMTP_URL: smtp.url,
          SEND_EFFECT_KEY: "a-long-random-key-from-the-vault",
        });
        const { port } = deno;
        const call = (authorization?: string) =>
          fetch(`http://127.0.0.1:${port}/send-effect`, {
            method: "POST",
            headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
            body: JSON.stringify({ date: DATE }),
          });
        expect((await call()).status).toBe(401);
        expect((await call("Bearer the-public-anon-key")).status).toBe(401);
        expect(await db.query(`select * from effect_editions`)).toEqual([]);

        const answer = await call("Bearer a-long-random-key-from-the-vault");
        expect(answer.status).toBe(200);
        expect(await answer.json()).toMatchObject({ status: "done", date: DATE, counts: { sent: 3 } });
        expect((await smtp.waitForMails(3)).map((mail) => mail.subject)).toEqual(
          Array(3).fill(fixtureEdition(DATE).subject),
        );
        const again = await call("Bearer a-long-random-key-from-the-vault");
        expect(await again.json()).toMatchObject({ status: "done", thisCall: { sent: 0 } });
        expect(smtp.mails).toHaveLength(3);

        // Never an Effect before its day, even when asked for one by date.
        const tomorrow = dayIn(contentIdentity().timeZone, new Date(Date.now() + 86_400_000));
        const early = await fetch(`http://127.0.0.1:${port}/send-effect`, {
          method: "POST",
          headers: { authorization: "Bearer a-long-random-key-from-the-vault" },
          body: JSON.stringify({ date: tomorrow }),
        });
        expect(await early.json()).toEqual({ status: "not_due", date: tomorrow });
        expect(
          await db.query("select edition_date from effect_editions where edition_date = $1", [tomorrow]),
        ).toEqual([]);
      } finally {
        await deno?.stop();
        await smtp.stop();
        await site.close();
        await db.close();
        await database.drop();
      }
    },
  );
});

const DATE = "2026-11-23";

/** One function entry served by Deno on a free loopback port, its log collected. */
async function serveUnderDeno(entry: string, env: Record<string, string>) {
  const port = await freePort();
  const started = await startProcess(
    DENO,
    [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-sys",
      "--config",
      path.join(FUNCTIONS, "deno.json"),
      entry,
    ],
    {
      cwd: ROOT,
      env: { ...denoEnv, FUNCTION_PORT: String(port), ...env },
      ready: /Listening on/,
      timeoutMs: 120_000,
    },
  );
  return { port, ...started };
}
