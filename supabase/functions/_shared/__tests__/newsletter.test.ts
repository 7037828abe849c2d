/**
 * The functions app as `(Request) => Response` over PGlite, built by `createBackend` exactly as
 * the hosts build it, with no server in between. The HTTP behaviour of each host is tested beside
 * it (server/__tests__, the Deno smoke test).
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { Hono } from "hono";
import { createPgliteExecutor } from "../../../../server/pglite-executor.ts";
import { contentIdentity } from "../../../../test/support/effect-fixtures.ts";
import { preparedDataDir } from "../../../../test/support/test-stack.ts";
import { type Backend, createBackend } from "../backend.ts";
import type { Env } from "../contract/variables.ts";
import type { Logger } from "../logger.ts";
import type { MailMessage, Mailer } from "../mail/mailer.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";

jest.setTimeout(60_000);

const SITE = "http://localhost:8000";
/** The names the repository's content gives the mail. */
const identity = async () => contentIdentity();

function call(name: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${SITE}/functions/v1/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: SITE, ...headers },
    body: JSON.stringify(body),
  });
}

/** The core as a host builds it, with `mailer` as its only transport and no published Effect. */
const backendOver = (db: SqlExecutor, env: Env, mailer: Mailer, log: Logger, now?: () => Date) =>
  createBackend(env, {
    db,
    log,
    site: () => ({
      identity,
      edition: () => Promise.reject(new Error("no Effect is published in this test")),
      latestEdition: async () => null,
    }),
    fallbackMailer: () => mailer,
    senderName: () => "test",
    now,
  });

type Handle = (
  name: string,
  request: Request,
  info?: { clientAddress?: string; waitUntil?: (work: Promise<unknown>) => void },
) => Promise<Response>;

/** The app mounted as the local stack mounts it, the host's part played by `info`. */
const handlerOf =
  (backend: Backend): Handle =>
  async (_name, request, info = {}) =>
    new Hono()
      .route(
        "/functions/v1",
        backend.functionsApp({
          clientAddress: () => info.clientAddress ?? "unknown",
          waitUntil: info.waitUntil,
        }),
      )
      .fetch(request);

describe("the functions as Request → Response", () => {
  let dataDir: string;
  let db: SqlExecutor;
  let newsletter: Backend;
  const sent: MailMessage[] = [];
  const logs: string[] = [];
  const log: Logger = {
    info: (message) => logs.push(message),
    warn: (message) => logs.push(`warning: ${message}`),
    error: (message) => logs.push(`error: ${message}`),
  };
  /** A transport that keeps what it is given, as an inbox would. */
  const inbox: Mailer = {
    description: "memory",
    async send(message) {
      sent.push(message);
    },
  };
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const tokenIn = (message: MailMessage, param: "confirm" | "unsubscribe") =>
    new RegExp(`[?&]${param}=([A-Za-z0-9_-]{43})`).exec(message.text)?.[1];

  const handle: Handle = (...args) => handlerOf(newsletter)(...args);

  beforeAll(async () => {
    dataDir = await preparedDataDir();
    db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    newsletter = backendOver(db, { RATE_LIMIT_PER_MINUTE: "3" }, inbox, log, now);
  });
  afterAll(async () => {
    await newsletter?.finishDelivery();
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("takes a signup, mails its link once delivery runs, and confirms and unsubscribes by it", async () => {
    const after: Promise<unknown>[] = [];
    const waitUntil = (work: Promise<unknown>) => after.push(work);
    const signup = await handle(
      "send-confirmation",
      call("send-confirmation", { email: "Reader@Example.COM" }),
      { clientAddress: "192.0.2.1", waitUntil },
    );
    expect(signup.status).toBe(200);
    expect(await signup.json()).toEqual({ status: "pending" });
    // The mail goes out after the answer, through the host's waitUntil.
    expect(after).toHaveLength(1);
    await Promise.all(after);
    expect(sent.map((message) => message.to)).toEqual(["Reader@example.com"]);

    const confirm = await handle(
      "confirm-subscription",
      call("confirm-subscription", { token: tokenIn(sent[0], "confirm") }),
    );
    expect([confirm.status, await confirm.json()]).toEqual([200, { status: "confirmed" }]);
    const leave = await handle(
      "unsubscribe",
      call("unsubscribe", { token: tokenIn(sent[0], "unsubscribe") }),
    );
    expect([leave.status, await leave.json()]).toEqual([200, { status: "unsubscribed" }]);
    expect(await newsletter.admin.countByStatus()).toMatchObject({ unsubscribed: 1 });
  });

  it("answers the preflight for the site's origin and refuses other methods with 405", async () => {
    const preflight = await handle(
      "send-confirmation",
      new Request(`${SITE}/functions/v1/send-confirmation`, {
        method: "OPTIONS",
        headers: { origin: SITE, "access-control-request-method": "POST" },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "authorization, apikey, x-client-info, content-type",
    );
    const get = await handle(
      "confirm-subscription",
      new Request(`${SITE}/functions/v1/confirm-subscription`, {
        headers: { origin: "https://elsewhere.example" },
      }),
    );
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("refuses a body over the limit with 413, and one not sent as JSON with 415", async () => {
    const big = await handle(
      "confirm-subscription",
      call("confirm-subscription", { token: "x".repeat(5000) }),
    );
    expect([big.status, (await big.json()).error.code]).toEqual([413, "payload_too_large"]);
    const form = await handle(
      "confirm-subscription",
      new Request(`${SITE}/functions/v1/confirm-subscription`, {
        method: "POST",
        headers: { "content-type": "text/plain", origin: SITE },
        body: "token=abc",
      }),
    );
    expect([form.status, (await form.json()).error.code]).toEqual([415, "unsupported_media_type"]);
  });

  it("unsubscribes by the one-click post of RFC 8058, and answers 410 for a confirm link past its day", async () => {
    sent.length = 0;
    const waitUntil: Promise<unknown>[] = [];
    await handle("send-confirmation", call("send-confirmation", { email: "late@example.com" }), {
      clientAddress: "192.0.2.77",
      waitUntil: (work) => waitUntil.push(work),
    });
    await Promise.all(waitUntil);
    const [mail] = sent;
    const oneClick = /<([^>]+)>/.exec(mail.headers["List-Unsubscribe"])?.[1] ?? "";
    expect(mail.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");

    offsetMs += 25 * 3_600_000;
    const expired = await handle(
      "confirm-subscription",
      call("confirm-subscription", { token: tokenIn(mail, "confirm") }),
    );
    expect([expired.status, (await expired.json()).error.code]).toEqual([410, "expired_token"]);

    const provider = await handle(
      "unsubscribe",
      new Request(oneClick, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      }),
    );
    expect([provider.status, await provider.json()]).toEqual([200, { status: "unsubscribed" }]);
  });

  it("answers 429 with Retry-After past the per-minute limit of one client address", async () => {
    // The limit counts per clock minute: start at the top of one, so the four requests share it.
    offsetMs += 60_000 - (now().getTime() % 60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await handle(
        "send-confirmation",
        call("send-confirmation", { email: `limit-${i}@example.com` }),
        { clientAddress: "198.51.100.7" },
      );
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
        expect((await answer.json()).error.code).toBe("rate_limited");
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("answers 404 with the error body and CORS headers for a function that does not exist", async () => {
    const answer = await handle("send-everything", call("send-everything", {}));
    expect(answer.status).toBe(404);
    expect(answer.headers.get("access-control-allow-origin")).toBe(SITE);
    expect((await answer.json()).error.code).toBe("not_found");
  });

  it("answers a request whose body breaks off with 400, the JSON error body and CORS headers, and logs why", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"token":'));
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request(`${SITE}/functions/v1/confirm-subscription`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: SITE },
      body,
      duplex: "half",
    } as RequestInit);

    const response = await handle("confirm-subscription", request);
    expect(response.status).toBe(400);
    expect(response.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(await response.json()).toEqual({
      error: { code: "unreadable_body", message: "The request body could not be read." },
    });
    expect(logs.join("\n")).toContain("connection reset");
  });
});

describe("the functions when the database is gone", () => {
  it("answer 503 with Retry-After instead of 500", async () => {
    const dataDir = await preparedDataDir();
    const db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const newsletter = backendOver(db, {}, { description: "none", send: async () => undefined }, quiet);
    await db.close();
    const handle = handlerOf(newsletter);
    try {
      const answer = await handle(
        "send-confirmation",
        call("send-confirmation", { email: "later@example.com" }),
        { clientAddress: "192.0.2.9" },
      );
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("5");
      expect((await answer.json()).error.code).toBe("storage_unavailable");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
