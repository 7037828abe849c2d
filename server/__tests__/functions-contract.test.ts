/**
 * The functions' contract (docs/architecture.md, "The functions' contract") through HTTP, on both
 * hosts: the local stack on PGlite and on a real PostgreSQL server, and the same app served by Deno
 * (as on Supabase) on PostgreSQL.
 */
import { SUBSCRIBER_STATUSES } from "../../supabase/functions/_shared/subscriptions/admin-queries.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { testPostgresUrl } from "../../test/support/databases.ts";
import { linkIn, oneClickUrl, waitForMailsTo, waitForOutbox } from "../../test/support/outbox.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

const postgresUrl = testPostgresUrl();

let counter = 0;
const freshAddress = (name = "visitor") => `${name}-${Date.now().toString(36)}-${++counter}@example.com`;

const mailsTo = (stack: TestStack, address: string, count = 1) =>
  waitForMailsTo(stack.outbox, address, count);

const tokenOf = (url: URL, param: "confirm" | "unsubscribe") => url.searchParams.get(param) ?? "";

async function counts(stack: TestStack) {
  return stack.server.backend.admin.countByStatus();
}

/** Everything a visitor can observe about an answer: status, body and which headers it has. */
async function observable(response: Response) {
  const headers = [...response.headers.keys()]
    .filter((name) => !["date", "keep-alive", "connection"].includes(name))
    .sort();
  return { status: response.status, body: await response.text(), headers };
}

forEachBackend("the newsletter functions on %s", { deno: true, gateway: true }, (backend, postgresUrl) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack(backend, {}, postgresUrl);
  });
  afterAll(async () => {
    await stack?.close();
  });

  describe("send-confirmation", () => {
    it("answers a new address with pending and mails it one confirmation link", async () => {
      const address = freshAddress("new");
      const response = await stack.post("send-confirmation", { email: address });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "pending" });
      const [mail] = await mailsTo(stack, address);
      expect(linkIn(mail, "confirm").origin).toBe(stack.origin);
    });

    it("answers the same for a pending, confirmed and unsubscribed address as for a new one", async () => {
      const pending = freshAddress("pending");
      const confirmed = freshAddress("confirmed");
      const unsubscribed = freshAddress("unsubscribed");
      for (const address of [pending, confirmed, unsubscribed])
        await stack.post("send-confirmation", { email: address });
      const [confirmedMail] = await mailsTo(stack, confirmed);
      await stack.post("confirm-subscription", {
        token: tokenOf(linkIn(confirmedMail, "confirm"), "confirm"),
      });
      const [unsubscribedMail] = await mailsTo(stack, unsubscribed);
      await stack.post("unsubscribe", {
        token: tokenOf(linkIn(unsubscribedMail, "unsubscribe"), "unsubscribe"),
      });

      const answers = await Promise.all(
        [freshAddress("brand-new"), pending, confirmed, unsubscribed].map(async (email) =>
          observable(await stack.post("send-confirmation", { email })),
        ),
      );
      expect(answers[0]).toMatchObject({ status: 200, body: '{"status":"pending"}' });
      for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
    });

    it("keeps a confirmed address confirmed and sends it nothing when it signs up again", async () => {
      const address = freshAddress("loyal");
      await stack.post("send-confirmation", { email: address });
      const [mail] = await mailsTo(stack, address);
      await stack.post("confirm-subscription", { token: tokenOf(linkIn(mail, "confirm"), "confirm") });
      stack.advance(3600);
      const before = await counts(stack);
      expect((await stack.post("send-confirmation", { email: address.toUpperCase() })).status).toBe(200);
      await stack.drainMail();
      expect(await stack.mailJobsTo(address)).toEqual(["sent"]);
      expect(await mailsTo(stack, address)).toHaveLength(1);
      expect(await counts(stack)).toEqual(before);
    });

    it("treats an address in other letter cases as the same subscriber", async () => {
      const address = freshAddress("Case");
      const before = await counts(stack);
      await stack.post("send-confirmation", { email: address });
      await stack.post("send-confirmation", { email: `  ${address.toUpperCase()} ` });
      expect((await counts(stack)).pending).toBe(before.pending + 1);
    });

    it("sends a pending address a new mail only after the cooldown, and the newest link works", async () => {
      const address = freshAddress("again");
      await stack.post("send-confirmation", { email: address });
      const [first] = await mailsTo(stack, address, 1);
      await stack.post("send-confirmation", { email: address });
      await stack.drainMail();
      expect(await stack.mailJobsTo(address)).toEqual(["sent"]);
      expect(await mailsTo(stack, address)).toHaveLength(1);

      stack.advance(61);
      await stack.post("send-confirmation", { email: address });
      const mails = await mailsTo(stack, address, 2);
      // Both mails may carry the same Date (to the second): the newest is the one with a new link.
      const firstToken = tokenOf(linkIn(first, "confirm"), "confirm");
      const newest = mails.find((mail) => tokenOf(linkIn(mail, "confirm"), "confirm") !== firstToken);
      if (!newest) throw new Error("The second mail has the first mail's link");
      const response = await stack.post("confirm-subscription", {
        token: tokenOf(linkIn(newest, "confirm"), "confirm"),
      });
      expect(response.status).toBe(200);
    });

    it("makes one row and one mail of 50 concurrent signups of one address", async () => {
      const address = freshAddress("burst");
      const before = await counts(stack);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          stack.post("send-confirmation", {
            email: i % 2 ? address : address.toUpperCase().replace("@EXAMPLE.COM", "@example.com"),
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
      await mailsTo(stack, address, 1);
      await stack.drainMail();
      expect(await stack.mailJobsTo(address)).toEqual(["sent"]);
      expect(await mailsTo(stack, address)).toHaveLength(1);
      expect((await counts(stack)).pending).toBe(before.pending + 1);
    });

    it.each([
      ["no address", {}],
      ["an empty address", { email: "" }],
      ["an address that is not one", { email: "not-an-address" }],
      ["an address the browser would refuse", { email: "user@example..com" }],
      ["an address of 255 characters", { email: `${"a".repeat(243)}@example.com` }],
      ["a number", { email: 42 }],
    ])("refuses %s with 400 and stores nothing", async (_case, body) => {
      const before = await counts(stack);
      const response = await stack.post("send-confirmation", body);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: { code: "invalid_email", message: expect.any(String) },
      });
      expect(await counts(stack)).toEqual(before);
    });

    it("refuses a body that is not JSON, or not an object, with 400", async () => {
      const broken = await stack.post("send-confirmation", "{email:");
      expect(broken.status).toBe(400);
      expect((await broken.json()).error.code).toBe("invalid_json");
      const array = await stack.post("send-confirmation", '["a@example.com"]');
      expect(array.status).toBe(400);
      expect((await array.json()).error.code).toBe("invalid_body");
    });

    it("refuses a body over the limit with 413", async () => {
      const response = await stack.post("send-confirmation", {
        email: "a@example.com",
        padding: "x".repeat(10_000),
      });
      expect(response.status).toBe(413);
      expect((await response.json()).error.code).toBe("payload_too_large");
    });

    it("refuses a body that is not JSON by its type with 415", async () => {
      // A form post (application/x-www-form-urlencoded) is the signup card's: signup-form.test.ts.
      const response = await stack.post("send-confirmation", "email=a@example.com", {
        headers: { "content-type": "text/plain" },
      });
      expect(response.status).toBe(415);
      expect((await response.json()).error.code).toBe("unsupported_media_type");
    });

    it("refuses other methods with 405 and says which it allows", async () => {
      const response = await fetch(`${stack.url}/functions/v1/send-confirmation`);
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
      expect((await response.json()).error.code).toBe("method_not_allowed");
    });
  });

  describe("CORS", () => {
    it("answers the preflight for the site's origin with the headers supabase-js sends", async () => {
      const response = await fetch(`${stack.url}/functions/v1/send-confirmation`, {
        method: "OPTIONS",
        headers: {
          origin: stack.origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, apikey, x-client-info, content-type",
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(stack.origin);
      expect(response.headers.get("access-control-allow-headers")).toBe(
        "authorization, apikey, x-client-info, content-type",
      );
      expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    });

    it("puts CORS headers on errors too, and never for another origin", async () => {
      const error = await stack.post("send-confirmation", {});
      expect(error.headers.get("access-control-allow-origin")).toBe(stack.origin);
      const foreign = await stack.post(
        "send-confirmation",
        {},
        { headers: { origin: "https://evil.example" } },
      );
      expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
      const preflight = await fetch(`${stack.url}/functions/v1/unsubscribe`, {
        method: "OPTIONS",
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
      });
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    });
  });

  describe("confirm-subscription", () => {
    it("confirms from the link in the mail, and again on a second click", async () => {
      const address = freshAddress("confirm");
      const before = await counts(stack);
      await stack.post("send-confirmation", { email: address });
      const [mail] = await mailsTo(stack, address);
      const token = tokenOf(linkIn(mail, "confirm"), "confirm");
      for (let click = 0; click < 2; click++) {
        const response = await stack.post("confirm-subscription", { token });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: "confirmed" });
      }
      expect((await counts(stack)).confirmed).toBe(before.confirmed + 1);
    });

    it("answers 400 for a malformed token and 404 for an unknown one", async () => {
      const malformed = await stack.post("confirm-subscription", { token: "abc" });
      expect(malformed.status).toBe(400);
      expect((await malformed.json()).error.code).toBe("invalid_token");
      const unknown = await stack.post("confirm-subscription", { token: "A".repeat(43) });
      expect(unknown.status).toBe(404);
      expect((await unknown.json()).error.code).toBe("unknown_token");
    });

    it("answers 410 once the link is older than 24 hours", async () => {
      const address = freshAddress("late");
      await stack.post("send-confirmation", { email: address });
      const [mail] = await mailsTo(stack, address);
      stack.advance(24 * 3600 + 1);
      const response = await stack.post("confirm-subscription", {
        token: tokenOf(linkIn(mail, "confirm"), "confirm"),
      });
      expect(response.status).toBe(410);
      expect((await response.json()).error.code).toBe("expired_token");
    });
  });

  describe("unsubscribe", () => {
    it("unsubscribes from the link in the mail, twice alike, and a new signup must confirm again", async () => {
      const address = freshAddress("leaving");
      await stack.post("send-confirmation", { email: address });
      const [mail] = await mailsTo(stack, address);
      await stack.post("confirm-subscription", { token: tokenOf(linkIn(mail, "confirm"), "confirm") });
      const token = tokenOf(linkIn(mail, "unsubscribe"), "unsubscribe");
      for (let click = 0; click < 2; click++) {
        const response = await stack.post("unsubscribe", { token });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: "unsubscribed" });
      }
      // The old confirmation link does not bring the address back.
      const reconfirm = await stack.post("confirm-subscription", {
        token: tokenOf(linkIn(mail, "confirm"), "confirm"),
      });
      expect(reconfirm.status).toBe(410);

      stack.advance(61);
      await stack.post("send-confirmation", { email: address });
      const [, second] = await mailsTo(stack, address, 2);
      expect(second).toBeDefined();
    });

    it("takes the RFC 8058 one-click post from the List-Unsubscribe header, without auth or origin", async () => {
      const address = freshAddress("oneclick");
      const before = await counts(stack);
      await stack.post("send-confirmation", { email: address });
      const [mail] = await mailsTo(stack, address);
      const target = oneClickUrl(mail);
      expect(target.pathname).toBe("/functions/v1/unsubscribe");
      const response = await fetch(`${stack.url}${target.pathname}${target.search}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "unsubscribed" });
      expect((await counts(stack)).unsubscribed).toBe(before.unsubscribed + 1);

      const multipart = new FormData();
      multipart.set("List-Unsubscribe", "One-Click");
      const again = await fetch(`${stack.url}${target.pathname}${target.search}`, {
        method: "POST",
        body: multipart,
      });
      expect(again.status).toBe(200);
    });

    it("does not unsubscribe on a GET (mail scanners open links) or a post without the one-click body", async () => {
      const address = freshAddress("scanned");
      await stack.post("send-confirmation", { email: address });
      const [mail] = await mailsTo(stack, address);
      const target = oneClickUrl(mail);
      const get = await fetch(`${stack.url}${target.pathname}${target.search}`);
      expect(get.status).toBe(405);
      const empty = await fetch(`${stack.url}${target.pathname}${target.search}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "",
      });
      expect(empty.status).toBe(400);
      const unknown = await stack.post("unsubscribe", { token: "B".repeat(43) });
      expect(unknown.status).toBe(404);
    });
  });

  it("answers 404 with an error body for a function that does not exist", async () => {
    const response = await stack.post("delete-everything", {});
    expect(response.status).toBe(404);
    // On Supabase no function of ours is asked: the gateway answers with its own body.
    if (backend === "Deno behind Supabase's gateway") expect((await response.json()).code).toBe("NOT_FOUND");
    else expect((await response.json()).error.code).toBe("not_found");
  });

  it("never writes an address to its log", async () => {
    const address = freshAddress("private");
    await stack.post("send-confirmation", { email: address });
    await mailsTo(stack, address);
    expect(stack.logs.some((line) => line.includes("send-confirmation 200"))).toBe(true);
    expect(stack.logs.join("\n")).not.toContain(address);
    expect(stack.logs.join("\n")).not.toMatch(/[a-z0-9-]+@example\.com/);
  });

  it("keeps subscribers and their links across a restart", async () => {
    const address = freshAddress("durable");
    await stack.post("send-confirmation", { email: address });
    const [mail] = await mailsTo(stack, address);
    const before = await counts(stack);
    await stack.restart();
    expect(await counts(stack)).toEqual(before);
    const response = await stack.post("confirm-subscription", {
      token: tokenOf(linkIn(mail, "confirm"), "confirm"),
    });
    expect(response.status).toBe(200);
    expect(Object.keys(await counts(stack))).toEqual([...SUBSCRIBER_STATUSES]);
  });
});

forEachBackend("rate limiting on %s", { deno: true }, (backend, postgresUrl) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(backend, { RATE_LIMIT_PER_MINUTE: "3" }, postgresUrl);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("answers 429 with Retry-After past the per-minute limit, and lets the client in again a minute later", async () => {
    // The limit counts per clock minute: start at the top of one, so the five requests share it.
    stack.advance(60 - (stack.now().getTime() % 60_000) / 1000);
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const response = await stack.post("send-confirmation", { email: freshAddress("eager") });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    if (!limited) throw new Error("No request was limited");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await limited.json()).error.code).toBe("rate_limited");
    stack.advance(60);
    expect((await stack.post("send-confirmation", { email: freshAddress("patient") })).status).toBe(200);
    await waitForOutbox(stack.outbox, 4);
  });
});

(postgresUrl ? describe : describe.skip)("when PostgreSQL goes away", () => {
  it("answers 503 with Retry-After, and stores nothing half-way", async () => {
    const stack = await startTestStack("PostgreSQL", {}, postgresUrl);
    try {
      await stack.database?.drop();
      const response = await stack.post("send-confirmation", { email: freshAddress("unlucky") });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect((await response.json()).error.code).toBe("storage_unavailable");
    } finally {
      await stack.close();
    }
  });
});

forEachBackend("the subscriber record on %s", { deno: true }, (backend, postgresUrl) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(backend, {}, postgresUrl);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("records consent: the page the signup came from, without its query, and when", async () => {
    const address = freshAddress("consent");
    const before = stack.now();
    await stack.post(
      "send-confirmation",
      { email: address },
      { headers: { referer: `${stack.origin}/?confirm=secret#newsletter` } },
    );
    const [row] = (await stack.server.backend.admin.list()).filter(
      (subscriber) => subscriber.email === address,
    );
    // Pending until the link is clicked; then it is the confirmed consent.
    expect(row).toMatchObject({
      status: "pending",
      pending_consent_source: `${stack.origin}/`,
      consent_source: null,
    });
    expect(row.pending_consent_at?.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    expect(row.signed_up_at?.getTime()).toBe(row.pending_consent_at?.getTime());
    const [mail] = await mailsTo(stack, address);
    await stack.post("confirm-subscription", { token: tokenOf(linkIn(mail, "confirm"), "confirm") });
    const [confirmed] = (await stack.server.backend.admin.list()).filter(
      (subscriber) => subscriber.email === address,
    );
    expect(confirmed).toMatchObject({
      status: "confirmed",
      consent_source: `${stack.origin}/`,
      consent_at: row.pending_consent_at,
      pending_consent_source: null,
    });
  });

  it("purges addresses left pending for a week, and keeps confirmed ones and younger pending ones", async () => {
    const stale = freshAddress("stale");
    const confirmed = freshAddress("kept");
    await stack.post("send-confirmation", { email: stale });
    await stack.post("send-confirmation", { email: confirmed });
    const [mail] = await mailsTo(stack, confirmed);
    expect(
      (await stack.post("confirm-subscription", { token: tokenOf(linkIn(mail, "confirm"), "confirm") }))
        .status,
    ).toBe(200);
    stack.advance(2 * 86_400);
    const young = freshAddress("young");
    await stack.post("send-confirmation", { email: young });
    stack.advance(6 * 86_400);

    await stack.server.backend.purge(stack.now());
    const left = new Map((await stack.server.backend.admin.list()).map((row) => [row.email, row.status]));
    expect(left.has(stale)).toBe(false);
    expect(left.get(confirmed)).toBe("confirmed");
    expect(left.get(young)).toBe("pending");
  });
});
