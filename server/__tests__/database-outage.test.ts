/**
 * PostgreSQL going away and coming back, under traffic: signups answer 503 within 2 s while it is
 * down (a form post lands on the try-again page; nothing hangs, nothing is half-stored), the
 * stack survives a server stopped in the middle of a transaction, and signups work again within
 * 2 s of it being back.
 */
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import { postgresAvailable, startPostgres, type PostgresServer } from "../../test/support/postgres-server.ts";
import { SIGNUP_RESULT_PAGES } from "../../supabase/functions/_shared/contract/signup-result-pages.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { eventually } from "../../test/support/eventually.ts";

const OUTAGE_ANSWER_MS = 2_000;
let counter = 0;
const address = () => `outage-${process.pid}-${++counter}@example.com`;

async function timedSignup(stack: TestStack): Promise<{ status: number; ms: number; code?: string }> {
  const started = performance.now();
  const response = await stack.post("send-confirmation", { email: address() });
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, ms: performance.now() - started, code: body.error?.code };
}

(postgresAvailable() ? describe : describe.skip)("a PostgreSQL outage", () => {
  let server: PostgresServer;
  let stack: TestStack;

  beforeAll(async () => {
    server = await startPostgres();
    stack = await startTestStack("PostgreSQL", {}, server.url);
  });
  afterAll(async () => {
    await stack?.close().catch(() => undefined);
    server?.stop();
  });

  it("answers 503 within 2 s while the database is down, and 200 within 2 s once it is back", async () => {
    expect((await timedSignup(stack)).status).toBe(200);

    server.halt();
    // Several rounds of concurrent signups: a driver that backs off longer after each failure
    // would answer the later rounds slower.
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => timedSignup(stack)));
      for (const answer of answers) {
        expect(answer).toMatchObject({ status: 503, code: "storage_unavailable" });
        expect(answer.ms).toBeLessThan(OUTAGE_ANSWER_MS);
      }
    }

    server.resume();
    const back = performance.now();
    await eventually(() => timedSignup(stack), {
      what: "a signup answered 200 after the database is back",
      until: (answer) => answer.status === 200,
    });
    expect(performance.now() - back).toBeLessThan(OUTAGE_ANSWER_MS);
  });

  it("sends a form post to the try-again page within 2 s while the database is down", async () => {
    const formPost = () =>
      fetch(`${stack.url}/functions/v1/send-confirmation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: stack.origin },
        body: new URLSearchParams({ email: address() }),
        redirect: "manual",
      });
    server.halt();
    try {
      const started = performance.now();
      const response = await formPost();
      expect(performance.now() - started).toBeLessThan(OUTAGE_ANSWER_MS);
      expect([response.status, response.headers.get("location")]).toEqual([
        303,
        `${stack.origin}${SIGNUP_RESULT_PAGES.failed}`,
      ]);
      expect(stack.logs.some((line) => / 303 .* form:storage_unavailable$/.test(line))).toBe(true);
    } finally {
      server.resume();
    }
    const answer = await eventually(
      async () => {
        const response = await formPost();
        return { status: response.status, location: response.headers.get("location") };
      },
      {
        what: "a form post that does not land on the try-again page after the database is back",
        until: ({ status, location }) => status === 303 && !location?.endsWith(SIGNUP_RESULT_PAGES.failed),
      },
    );
    expect(answer.location).toBe(`${stack.origin}${SIGNUP_RESULT_PAGES.subscribed}`);
  });

  it("survives the database stopping in the middle of transactions, and stores only what was answered 200", async () => {
    const inFlight: Promise<{ status: number; email: string }>[] = [];
    const answered = { 200: 0, 503: 0 };
    let stopped = false;
    const traffic = (async () => {
      while (!stopped) {
        const email = address();
        inFlight.push(
          stack.post("send-confirmation", { email }).then(async (response) => {
            if (response.status === 200 || response.status === 503) answered[response.status] += 1;
            return { status: response.status, email, body: await response.text() };
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    // The database stops while signups are being stored, and the traffic goes on until the
    // stack has answered some of them 503.
    await eventually(() => answered[200], {
      what: "signups answered 200 before the stop",
      until: (n) => n >= 5,
    });
    server.halt();
    await eventually(() => answered[503], {
      what: "signups answered 503 after the stop",
      until: (n) => n >= 5,
    });
    stopped = true;
    await traffic;
    const answers = await Promise.all(inFlight);
    server.resume();

    expect(answers.some((answer) => answer.status === 503)).toBe(true);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 503)).toBe(true);
    // Still running: the next signup is stored.
    await eventually(() => timedSignup(stack), {
      what: "a signup answered 200 after the database is back",
      until: (after) => after.status === 200,
    });

    const stored = new Set((await stack.server.backend.admin.list()).map((row) => row.email));
    for (const answer of answers) {
      if (answer.status === 200) expect(stored.has(answer.email)).toBe(true);
      else expect(stored.has(answer.email)).toBe(false);
    }
  });

  it("keeps an executor usable after the server went away inside one of its transactions", async () => {
    const db = createPostgresExecutor(server.url, { max: 2 });
    try {
      let inside!: () => void;
      let goOn!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const halted = new Promise<void>((resolve) => (goOn = resolve));
      const transaction = db.transaction(async (tx) => {
        await tx.query("select 1");
        inside();
        // The transaction's next statement comes only once the server is gone.
        await halted;
        await tx.query("select 2");
      });
      await entered;
      server.halt();
      goOn();
      await expect(transaction).rejects.toThrow();
      server.resume();
      expect(await db.query("select 1 as one")).toEqual([{ one: 1 }]);
      expect(await db.transaction((tx) => tx.query("select 2 as two"))).toEqual([{ two: 2 }]);
    } finally {
      await db.close();
    }
  });
});
