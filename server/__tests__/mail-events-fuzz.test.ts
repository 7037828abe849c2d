/**
 * Whatever anyone posts: random bytes, real reports of the bounce corpus mutated (cut, spliced,
 * repeated, their bytes flipped), the hostile shapes of `test/support/hostile-mail.ts`, the
 * providers' JSON mutated and signed as the provider signs it, and random codes, states and
 * cookies to the CMS sign-in's callback. Every answer is a 2xx, 3xx or 4xx, never a 5xx, and comes
 * within a generous bound; on the local stack (PGlite, PostgreSQL) and on the functions' Deno host.
 * Property-based with fast-check, a fixed seed per run so a failure replays; the time budget of a
 * hostile report (and of a request beside it) is `npm run bench:hostile-mail`'s.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { forEachBackend } from "../../test/support/backends.ts";
import {
  startGithubStandIn,
  STAND_IN_CLIENT_ID,
  STAND_IN_CLIENT_SECRET,
  type GithubStandIn,
} from "../../test/support/github-stand-in.ts";
import { hostileMails } from "../../test/support/hostile-mail.ts";
import {
  DSN_SECRET,
  MAIL_EVENTS_ENV,
  makeSigningKey,
  resendBounce,
  resendEvent,
  sesBounce,
  sesComplaint,
  snsFetch,
  snsMessage,
} from "../../test/support/mail-events.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

const CORPUS = path.resolve(__dirname, "../../test/fixtures/bounce-corpus");
const corpus = readdirSync(CORPUS)
  .filter((file) => file.endsWith(".eml"))
  .map((file) => readFileSync(path.join(CORPUS, file)));
/** A generous bound for one answer: the budget (100 ms for 200 KB) is the bench's. */
const ANSWER_WITHIN_MS = 3_000;
const RUNS = 25;

/** A real report, mutated. */
const mutatedReport = fc
  .tuple(
    fc.constantFrom(...corpus),
    fc.array(
      fc.oneof(
        fc.record({ cut: fc.nat() }),
        fc.record({ at: fc.nat(), insert: fc.uint8Array({ maxLength: 64 }) }),
        fc.record({ at: fc.nat(), length: fc.nat({ max: 400 }), times: fc.integer({ min: 2, max: 200 }) }),
        fc.record({ at: fc.nat(), flip: fc.integer({ min: 0, max: 255 }) }),
        fc.record({
          at: fc.nat(),
          line: fc.constantFrom(
            "--",
            "\r\n\r\n",
            "Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n",
            "Status: 5.0.0 (\r\n",
            "=?utf-8?B?",
            "\\x{110000}",
            "\r\n ",
          ),
        }),
      ),
      { maxLength: 6 },
    ),
  )
  .map(([original, mutations]) => {
    let bytes = Buffer.from(original);
    for (const mutation of mutations) {
      const at = "at" in mutation ? mutation.at % (bytes.length + 1) : 0;
      if ("cut" in mutation) bytes = bytes.subarray(0, mutation.cut % (bytes.length + 1));
      else if ("insert" in mutation)
        bytes = Buffer.concat([bytes.subarray(0, at), mutation.insert, bytes.subarray(at)]);
      else if ("times" in mutation) {
        const slice = bytes.subarray(at, at + mutation.length);
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          ...Array.from({ length: mutation.times }, () => slice),
          bytes.subarray(at),
        ]);
      } else if ("flip" in mutation && bytes.length > 0) {
        bytes = Buffer.from(bytes);
        bytes[at % bytes.length] = mutation.flip;
      } else if ("line" in mutation)
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(mutation.line), bytes.subarray(at)]);
    }
    return bytes.subarray(0, 250 * 1024);
  });

const anyMail = fc.oneof(
  { weight: 6, arbitrary: mutatedReport },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 8192 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(...Object.values(hostileMails(128 * 1024)))
      .map((mail) => Buffer.from(mail, "latin1")),
  },
);

/** A provider's JSON: its documented shape with any value anywhere, or any JSON at all. */
const providerJson = (documented: Record<string, unknown>) =>
  fc.oneof(
    fc.jsonValue(),
    fc
      .tuple(fc.constantFrom(...Object.keys(documented)), fc.jsonValue())
      .map(([field, value]) => ({ ...documented, [field]: value })),
    fc.tuple(fc.jsonValue(), fc.jsonValue()).map(([bounce, to]) => ({ ...documented, data: { to, bounce } })),
  );

forEachBackend(
  "mail-events and cms-auth answer whatever is posted on %s",
  { deno: true },
  (backend, serverUrl) => {
    let stack: TestStack;
    let github: GithubStandIn;
    const key = makeSigningKey();
    const statuses = new Map<number, number>();

    beforeAll(async () => {
      github = await startGithubStandIn();
      stack = await startTestStack(
        backend,
        {
          ...MAIL_EVENTS_ENV,
          CMS_GITHUB_CLIENT_ID: STAND_IN_CLIENT_ID,
          CMS_GITHUB_CLIENT_SECRET: STAND_IN_CLIENT_SECRET,
          CMS_GITHUB_URL: github.url,
        },
        serverUrl,
        snsFetch(key).fetch,
      );
    });
    afterAll(async () => {
      console.log(`${backend}: answers by status ${JSON.stringify(Object.fromEntries(statuses))}`);
      await stack?.close();
      await github?.stop();
    });

    /** Sends a request and checks its answer: no 5xx, within the bound. */
    async function answered(route: string, init: RequestInit): Promise<number> {
      const started = performance.now();
      const response = await fetch(`${stack.url}/functions/v1/${route}`, { redirect: "manual", ...init });
      await response.arrayBuffer();
      const elapsed = performance.now() - started;
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500 || elapsed > ANSWER_WITHIN_MS)
        throw new Error(`${route} answered ${response.status} after ${Math.round(elapsed)} ms`);
      return response.status;
    }

    it.each(Object.keys(hostileMails()))(
      "answers the hostile report '%s' (200 KB) with a 2xx or 4xx, in seconds at most",
      async (name) => {
        const body = Buffer.from(hostileMails(200 * 1024)[name], "latin1").subarray(0, 250 * 1024);
        const status = await answered("mail-events/dsn", {
          method: "POST",
          headers: { authorization: `Bearer ${DSN_SECRET}`, "content-type": "message/rfc822" },
          body,
        });
        expect(status).toBeLessThan(500);
      },
    );

    it("answers any mail posted to mail-events/dsn with a 2xx or 4xx", async () => {
      await fc.assert(
        fc.asyncProperty(anyMail, fc.option(fc.string({ maxLength: 80 })), async (body, rcpt) => {
          const query = rcpt === null ? "" : `?rcpt=${encodeURIComponent(rcpt)}`;
          await answered(`mail-events/dsn${query}`, {
            method: "POST",
            headers: { authorization: `Bearer ${DSN_SECRET}`, "content-type": "message/rfc822" },
            body,
          });
        }),
        { numRuns: RUNS * 3, seed: 40 },
      );
    });

    it("answers any Resend event, signed or not, with a 2xx or 4xx", async () => {
      await fc.assert(
        fc.asyncProperty(
          providerJson(resendBounce("reader1@example.com")),
          fc.boolean(),
          async (payload, signed) => {
            const request = await resendEvent(payload as object);
            const headers = signed ? request.headers : { "content-type": "application/json" };
            await answered("mail-events/resend", { method: "POST", headers, body: request.body });
          },
        ),
        { numRuns: RUNS, seed: 41 },
      );
    });

    it("answers any SES notification, signed by SNS or mutated after, with a 2xx or 4xx", async () => {
      const documented = [
        JSON.parse(sesBounce("reader1@example.com")),
        JSON.parse(sesComplaint("reader2@example.com")),
      ];
      await fc.assert(
        fc.asyncProperty(fc.oneof(...documented.map(providerJson)), fc.nat(), async (message, flip) => {
          const request = snsMessage(key, "Notification", { Message: JSON.stringify(message) });
          // On the Deno host no certificate can be fetched (503, so SNS retries): there only the
          // refusals before it are asked for, a message changed after signing or no SNS message at
          // all. The cut leaves out at least the last character, so it is never the whole message.
          const body =
            backend === "Deno" || flip % 3 === 0
              ? request.body.slice(0, flip % request.body.length)
              : request.body;
          await answered("mail-events/ses", { method: "POST", headers: request.headers, body });
        }),
        { numRuns: RUNS, seed: 42 },
      );
    });

    it("answers any code, state and cookie at cms-auth's callback with a redirect or a 4xx", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.string({ maxLength: 200 }),
          fc.string({ maxLength: 400 }),
          fc.string({ maxLength: 400 }),
          async (code, state, cookie) => {
            const query = new URLSearchParams({ code, state }).toString();
            await answered(`cms-auth/callback?${query}`, {
              headers: {
                cookie: `cms_auth=${encodeURIComponent(cookie)}; ${cookie.replace(/[^\x20-\x7e]/g, "")}`,
              },
            });
          },
        ),
        { numRuns: RUNS, seed: 43 },
      );
    });
  },
);
