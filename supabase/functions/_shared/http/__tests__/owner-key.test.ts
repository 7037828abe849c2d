/**
 * The owner's key, as `send-effect` and `mail-events/dsn` both check it (`ownerKey`, their one
 * middleware): the scheme in any case, the key itself exactly, and a call without it refused
 * before its body is read.
 */
import { Hono } from "hono";
import { createFunctionsApp, type FunctionsEnv } from "../../app.ts";
import { checkOwnerKey, ownerKey } from "../owner-key.ts";

const headers = (authorization?: string) => new Headers(authorization === undefined ? {} : { authorization });

describe("the owner's key", () => {
  it("accepts the key after Bearer, whatever the scheme's case (RFC 9110, 11.1)", async () => {
    for (const value of [
      "Bearer s3cret-key",
      "bearer s3cret-key",
      "BEARER s3cret-key",
      "Bearer  s3cret-key ",
    ])
      expect(await checkOwnerKey(headers(value), "s3cret-key")).toBe("ok");
  });

  it("says missing when no bearer key came, and wrong for any other key", async () => {
    for (const value of [undefined, "", "Bearer", "Bearer ", "Basic s3cret-key", "s3cret-key"])
      expect(await checkOwnerKey(headers(value), "s3cret-key")).toBe("missing");
    for (const value of [
      "Bearer s3cret-kez",
      "Bearer S3CRET-KEY",
      "Bearer s3cret-key-and-more",
      "Bearer s3cret",
    ])
      expect(await checkOwnerKey(headers(value), "s3cret-key")).toBe("wrong");
  });

  it("accepts nothing when no key is configured", async () => {
    expect(await checkOwnerKey(headers("Bearer anything"), undefined)).toBe("wrong");
    expect(await checkOwnerKey(headers("Bearer anything"), "")).toBe("wrong");
  });
});

describe("the owner-key middleware", () => {
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  /** A function guarded by the key, as a host serves it: the app's refusals, the outcome its log reads. */
  function guarded(key: string | null) {
    let outcome: string | undefined;
    const routes = new Hono<FunctionsEnv>().post("/", ownerKey(key, "Only the owner may call this."), (c) =>
      c.json({ called: true }),
    );
    const app = new Hono<FunctionsEnv>()
      .use(async (c, next) => {
        await next();
        outcome = c.get("outcome");
      })
      .route("/", createFunctionsApp([{ "send-effect": routes }], { log, allowedOrigins: [] }));
    return { app, outcome: () => outcome };
  }
  /** A body that fails the request if anything reads it. */
  const unread = () =>
    new ReadableStream({
      pull: () => {
        throw new Error("the body was read");
      },
    });
  const call = (authorization?: string) =>
    new Request("http://functions.test/send-effect", {
      method: "POST",
      headers: authorization ? { authorization } : {},
      body: unread(),
      duplex: "half",
    } as RequestInit);

  it("lets the call on with the key", async () => {
    const { app } = guarded("s3cret-key");
    const answer = await app.fetch(
      new Request("http://functions.test/send-effect", {
        method: "POST",
        headers: { authorization: "bearer s3cret-key" },
      }),
    );
    expect([answer.status, await answer.json()]).toEqual([200, { called: true }]);
  });

  it.each([
    ["no key", undefined, "unsigned"],
    ["another key", "Bearer s3cret-kez", "invalid_bearer"],
  ])("refuses %s with a 401 before reading the body, its outcome %s", async (_what, authorization, word) => {
    const { app, outcome } = guarded("s3cret-key");
    const answer = await app.fetch(call(authorization));
    expect([answer.status, await answer.json()]).toEqual([
      401,
      { error: { code: "unauthorized", message: "Only the owner may call this." } },
    ]);
    expect(outcome()).toBe(word);
  });

  it("refuses every call when no key is configured", async () => {
    const { app } = guarded(null);
    expect((await app.fetch(call("Bearer anything"))).status).toBe(401);
  });
});
