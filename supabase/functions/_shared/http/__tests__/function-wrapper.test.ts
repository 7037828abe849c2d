/**
 * The wrapper's form posts as `(Request) => Response`, for what the HTTP tests cannot provoke: a
 * bug in a handler. The signup's own form posts are tested through HTTP in
 * server/__tests__/signup-form.test.ts.
 */
import { parseConfig } from "../../config.ts";
import { wrapFunction } from "../function-wrapper.ts";
import { signupFormPost } from "../../subscriptions/send-confirmation.ts";

const SITE = "https://thepurposeeffect.example";

describe("a form post whose handler fails", () => {
  it("lands on the try-again page, the bug in the log and its outcome noted", async () => {
    const lines: string[] = [];
    const notes: string[] = [];
    const handler = wrapFunction(
      {
        name: "send-confirmation",
        formPost: signupFormPost,
        async handle() {
          throw new TypeError("a bug");
        },
      },
      {
        config: parseConfig({ SITE_URL: SITE }),
        log: {
          info: (line) => lines.push(line),
          warn: (line) => lines.push(line),
          error: (line) => lines.push(line),
        },
      },
    );
    const response = await handler(
      new Request(`${SITE}/functions/v1/send-confirmation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: SITE },
        body: "email=ann%40example.com",
      }),
      { note: (outcome) => notes.push(outcome) },
    );
    expect([response.status, response.headers.get("location")]).toEqual([
      303,
      `${SITE}/newsletter/try-again/`,
    ]);
    expect(notes).toEqual(["form:internal_error"]);
    expect(lines.join("\n")).toContain("TypeError: a bug");
  });
});
