/**
 * Where each reader came from, through HTTP on every host (the local stack on PGlite and
 * PostgreSQL, the functions' Deno host): `send-confirmation` keeps the source a signup sends, as
 * JSON or as the plain form's hidden fields, with the row the signup makes; what its parser does
 * not accept is dropped while the address is handled as without it; a later signup of the same
 * address keeps the first source; and `subscribers export` shows the six columns.
 */
import { SIGNUP_RESULT_PAGES } from "../../supabase/functions/_shared/contract/signup-result-pages.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { exportedRow } from "../../test/support/export-csv.ts";
import { linkIn, waitForMailsTo } from "../../test/support/outbox.ts";
import { SIGNED_UP_ON_AN_EFFECT } from "../../test/support/signup-source.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { subscribersText } from "../subscriber-commands.ts";

let counter = 0;
const freshAddress = (name: string) => `${name}-${Date.now().toString(36)}-${++counter}@example.com`;

const SOURCE_COLUMNS = Object.keys(SIGNED_UP_ON_AN_EFFECT);
const EMPTY = Object.fromEntries(SOURCE_COLUMNS.map((column) => [column, ""]));

/** One address's line of `subscribers export`, as column → cell. */
const exported = async (stack: TestStack, email: string) =>
  exportedRow(await subscribersText({ action: "export" }, stack.server.db, "test"), email);

const sourceIn = async (stack: TestStack, email: string) => {
  const row = await exported(stack, email);
  return Object.fromEntries(SOURCE_COLUMNS.map((column) => [column, row[column]]));
};

forEachBackend("where each reader came from, on %s", { deno: true }, (backend, postgresUrl) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack(backend, {}, postgresUrl);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("keeps the source a JSON signup sends, and the export shows it in its last six columns", async () => {
    const email = freshAddress("json");
    const response = await stack.post("send-confirmation", { email, ...SIGNED_UP_ON_AN_EFFECT });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "pending" });
    const csv = await subscribersText({ action: "export" }, stack.server.db, "test");
    expect(csv.split("\r\n")[0].split(",").slice(-6)).toEqual([...SOURCE_COLUMNS]);
    expect(await sourceIn(stack, email)).toEqual(SIGNED_UP_ON_AN_EFFECT);
    await waitForMailsTo(stack.outbox, email);
  });

  it("keeps the source the plain form's hidden fields post", async () => {
    const email = freshAddress("form");
    const response = await fetch(`${stack.url}/functions/v1/send-confirmation`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: stack.origin,
        referer: `${stack.origin}/effects/2026-10-22/`,
      },
      body: new URLSearchParams({ email, ...SIGNED_UP_ON_AN_EFFECT }).toString(),
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${stack.origin}${SIGNUP_RESULT_PAGES.subscribed}`);
    expect(await sourceIn(stack, email)).toEqual(SIGNED_UP_ON_AN_EFFECT);
  });

  it("takes `{ email }` alone as before, with the six columns empty", async () => {
    const email = freshAddress("bare");
    expect((await stack.post("send-confirmation", { email })).status).toBe(200);
    expect(await sourceIn(stack, email)).toEqual(EMPTY);
  });

  it("drops unknown, oversized and hostile values, stores the rest, and handles the address as ever", async () => {
    const email = freshAddress("hostile");
    const response = await stack.post("send-confirmation", {
      email,
      signup_form: "popup",
      signup_page: "https://evil.example/phish",
      referrer_host: "www.youtube.com/watch?v=x",
      utm_source: "x".repeat(101),
      utm_medium: "audio\u0000",
      utm_campaign: "=1+2",
      source: { signup_form: "dialog" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "pending" });
    // Text a spreadsheet would run is kept, and made inert in the CSV.
    expect(await sourceIn(stack, email)).toEqual({ ...EMPTY, utm_campaign: "'=1+2" });
    const [mail] = await waitForMailsTo(stack.outbox, email);
    expect(linkIn(mail, "confirm").origin).toBe(stack.origin);

    for (const source of [{ signup_form: 7 }, { utm_source: ["podcast"] }, { referrer_host: null }]) {
      const other = freshAddress("not-text");
      expect((await stack.post("send-confirmation", { email: other, ...source })).status).toBe(200);
      expect(await sourceIn(stack, other)).toEqual(EMPTY);
    }
  });

  it("refuses a bad address with its source exactly as without one, and stores nothing", async () => {
    const response = await stack.post("send-confirmation", {
      email: "not-an-address",
      ...SIGNED_UP_ON_AN_EFFECT,
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("invalid_email");
    const csv = await subscribersText({ action: "export" }, stack.server.db, "test");
    expect(csv).not.toContain("not-an-address");
  });

  it("keeps where an address first came from through later signups, its confirmation and a return", async () => {
    const email = freshAddress("again");
    await stack.post("send-confirmation", { email, ...SIGNED_UP_ON_AN_EFFECT });
    await waitForMailsTo(stack.outbox, email);
    const elsewhere = {
      signup_form: "dialog",
      signup_page: "/",
      referrer_host: "news.example",
      utm_source: "newsletter",
      utm_medium: "mail",
      utm_campaign: "later",
    };
    // Pending, signing up again from elsewhere after the cooldown: a new mail, the same source.
    stack.advance(120);
    await stack.post("send-confirmation", { email, ...elsewhere });
    expect(await sourceIn(stack, email)).toEqual(SIGNED_UP_ON_AN_EFFECT);
    const newest = (await waitForMailsTo(stack.outbox, email, 2))[1];
    const token = (param: "confirm" | "unsubscribe") => linkIn(newest, param).searchParams.get(param);
    expect((await stack.post("confirm-subscription", { token: token("confirm") })).status).toBe(200);
    // Confirmed, then unsubscribed, then back: still where it first came from.
    await stack.post("send-confirmation", { email, ...elsewhere });
    expect((await stack.post("unsubscribe", { token: token("unsubscribe") })).status).toBe(200);
    stack.advance(120);
    await stack.post("send-confirmation", { email, ...elsewhere });
    const row = await exported(stack, email);
    expect(row.status).toBe("pending");
    expect(await sourceIn(stack, email)).toEqual(SIGNED_UP_ON_AN_EFFECT);
  });
});
