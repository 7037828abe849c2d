/**
 * The app's form posts as `(Request) => Response`, for what the HTTP tests cannot provoke: a bug in
 * a handler, and a refusal whose page follows its typed answer. The signup's own form posts are
 * tested through HTTP in server/__tests__/signup-form.test.ts.
 */
import { Hono } from "hono";
import { createFunctionsApp, type FunctionsEnv } from "../app.ts";
import { parseConfig } from "../config.ts";
import type { FunctionSpec } from "../http/function-spec.ts";
import { formPost as formPostAnswer } from "../subscriptions/routes.ts";
import { InvalidEmail, signupFormPost } from "../subscriptions/send-confirmation.ts";

const SITE = "https://thepurposeeffect.example";

/** The signup's route as the subscriptions feature writes it (form post first), over a handler the test chooses. */
function appWith(handle: FunctionSpec["handle"], lines: string[]) {
  const log = {
    info: (line: string) => lines.push(line),
    warn: (line: string) => lines.push(line),
    error: (line: string) => lines.push(line),
  };
  const spec: FunctionSpec = { name: "send-confirmation", formPost: signupFormPost, handle };
  const signup = new Hono<FunctionsEnv>().post(
    "/",
    formPostAnswer(spec, parseConfig({ SITE_URL: SITE })),
    async (c) => {
      const accepted = await spec.handle({
        request: c.req.raw,
        body: new Uint8Array(await c.req.arrayBuffer()),
        clientAddress: "192.0.2.1",
        form: true,
      });
      return c.json(accepted.body, 200);
    },
  );
  let outcome: string | undefined;
  // As a host's request log reads it.
  const app = new Hono<FunctionsEnv>()
    .use(async (c, next) => {
      await next();
      outcome = c.get("outcome");
    })
    .route("/", createFunctionsApp([{ "send-confirmation": signup }], { log, allowedOrigins: [SITE] }));
  return { app, outcome: () => outcome };
}

const formPost = (email: string) =>
  new Request(`${SITE}/send-confirmation`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: SITE,
      referer: `${SITE}/effects/`,
    },
    body: `email=${encodeURIComponent(email)}`,
  });

describe("a form post", () => {
  it("whose handler fails lands on the try-again page, the bug in the log and its outcome noted", async () => {
    const lines: string[] = [];
    const { app, outcome } = appWith(async () => {
      throw new TypeError("a bug");
    }, lines);
    const response = await app.fetch(formPost("ann@example.com"));
    expect([response.status, response.headers.get("location")]).toEqual([
      303,
      `${SITE}/newsletter/try-again/`,
    ]);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(outcome()).toBe("form:internal_error");
    expect(lines.join("\n")).toContain("TypeError: a bug");
  });

  it("follows the typed refusal: an empty address goes back to the card on the page it came from", async () => {
    const { app, outcome } = appWith(async () => {
      throw new InvalidEmail("missing");
    }, []);
    const response = await app.fetch(formPost(""));
    expect(response.headers.get("location")).toBe(`${SITE}/effects/#newsletter`);
    expect(outcome()).toBe("form:invalid_email:missing");
  });
});
