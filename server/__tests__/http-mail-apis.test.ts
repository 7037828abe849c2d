/**
 * The confirmation mail through the HTTP mail APIs, on the local stack, against stand-ins that keep
 * Resend's and SES's documented rules: the mail arrives once, with its list headers.
 */
import { startResendStandIn } from "../../test/support/resend-stand-in.ts";
import { startSesStandIn } from "../../test/support/ses-stand-in.ts";
import { startTestStack } from "../../test/support/test-stack.ts";

jest.setTimeout(60_000);

describe("confirmation mail over HTTP mail APIs", () => {
  it("goes through Resend once, with its one-click unsubscribe headers", async () => {
    const resend = await startResendStandIn();
    const stack = await startTestStack("PGlite", {
      RESEND_API_KEY: resend.apiKey,
      RESEND_API_URL: resend.url,
    });
    try {
      expect((await stack.post("send-confirmation", { email: "reader@example.com" })).status).toBe(200);
      await stack.drainMail();
      expect(await stack.mailJobsTo("reader@example.com")).toEqual(["sent"]);
      expect(resend.received("reader@example.com")).toBe(1);
      expect(resend.mails[0].headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
      expect(resend.requests[0].idempotencyKey).toEqual(expect.any(String));
    } finally {
      await stack.close();
      await resend.close();
    }
  });

  it("goes through SES once, signed, with its one-click unsubscribe headers", async () => {
    const ses = await startSesStandIn();
    const stack = await startTestStack("PGlite", ses.env);
    try {
      expect((await stack.post("send-confirmation", { email: "reader@example.com" })).status).toBe(200);
      await stack.drainMail();
      expect(await stack.mailJobsTo("reader@example.com")).toEqual(["sent"]);
      expect(ses.received("reader@example.com")).toBe(1);
      expect(ses.mails[0].raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    } finally {
      await stack.close();
      await ses.close();
    }
  });
});
