/**
 * Every row of `mail/transports.ts`, against its stand-in (`test/support/transport-stand-ins.ts`):
 * the confirmation mail leaves through it once from the local stack, with its one-click
 * unsubscribe headers; a row missing what it needs refuses to start, naming it; `npm run doctor`
 * knows what its mail needs in DNS; and the docs' table of transports names it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createMailer } from "../../supabase/functions/_shared/mail/create-mailer.ts";
import { exampleValue, TRANSPORTS } from "../../supabase/functions/_shared/mail/transports.ts";
import { TRANSPORT_STAND_INS } from "../../test/support/transport-stand-ins.ts";
import { startTestStack } from "../../test/support/test-stack.ts";

jest.setTimeout(60_000);

const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
const operating = readFileSync(path.resolve(__dirname, "../../docs/operating.md"), "utf8");

describe.each(TRANSPORTS.map((transport) => [transport.variable, transport] as const))(
  "the transport %s",
  (variable, transport) => {
    it("carries the confirmation mail once, with its one-click unsubscribe headers", async () => {
      const standIn = await TRANSPORT_STAND_INS[variable as keyof typeof TRANSPORT_STAND_INS]();
      const stack = await startTestStack("PGlite", standIn.env);
      try {
        expect((await stack.post("send-confirmation", { email: "reader@example.com" })).status).toBe(200);
        await stack.drainMail();
        expect(await stack.mailJobsTo("reader@example.com")).toEqual(["sent"]);
        expect(standIn.received("reader@example.com")).toBe(1);
        expect(standIn.header("reader@example.com", "List-Unsubscribe-Post")).toBe(
          "List-Unsubscribe=One-Click",
        );
        expect(standIn.header("reader@example.com", "List-Unsubscribe")).toMatch(/^<https?:\/\/[^>]+>/);
      } finally {
        await stack.close();
        await standIn.close();
      }
    });

    it("refuses to start without what it needs, naming each", () => {
      const value = exampleValue(transport);
      if (transport.needs.length === 0) {
        expect(() => createMailer({ [variable]: value }, { log, required: true })).not.toThrow();
        return;
      }
      expect(() => createMailer({ [variable]: value }, { log, required: true })).toThrow(
        `${variable} is set but ${transport.needs.join(" and ")} ${transport.needs.length > 1 ? "are" : "is"} not`,
      );
    });

    it("says what DNS its mail needs, and is in the docs' table of transports", () => {
      const dns = transport.dns(exampleValue(transport));
      expect(dns?.name).toEqual(expect.any(String));
      expect(operating).toContain(`| \`${variable}\` |`);
    });
  },
);
