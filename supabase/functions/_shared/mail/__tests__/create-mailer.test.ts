import { createMailer } from "../create-mailer.ts";
import { TRANSPORTS } from "../transports.ts";

const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
const options = { log, required: true };
const SES = { SES_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "secret" };

describe("createMailer's HTTP APIs", () => {
  it("makes the Resend transport from RESEND_API_KEY, at Resend's documented pace and batch size", () => {
    const mailer = createMailer({ RESEND_API_KEY: "re_123" }, options);
    expect(mailer.description).toBe("Resend api.resend.com, 2 requests/s");
    expect(mailer.batchSize).toBe(100);
  });

  it("makes the SES transport from SES_REGION and the AWS credentials", () => {
    expect(createMailer(SES, options).description).toBe("SES eu-west-1");
    expect(() => createMailer({ SES_REGION: "eu-west-1" }, options)).toThrow(
      "SES_REGION is set but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not",
    );
  });

  it("refuses to start with two transports, naming both", () => {
    expect(() =>
      createMailer({ RESEND_API_KEY: "re_123", SMTP_URL: "smtps://u:p@smtp.example:465" }, options),
    ).toThrow("SMTP_URL and RESEND_API_KEY are both set: mail goes through one transport; unset all but one");
    expect(() => createMailer({ RESEND_API_KEY: "re_123", ...SES }, options)).toThrow(
      "RESEND_API_KEY and SES_REGION are both set",
    );
  });

  it("refuses RESEND_API_URL in plain http to another machine, and a bad pace", () => {
    expect(() =>
      createMailer({ RESEND_API_KEY: "re_123", RESEND_API_URL: "http://example.com" }, options),
    ).toThrow(/RESEND_API_URL must be https:\/\//);
    expect(() =>
      createMailer({ RESEND_API_KEY: "re_123", RESEND_REQUESTS_PER_SECOND: "fast" }, options),
    ).toThrow(/RESEND_REQUESTS_PER_SECOND must be a number/);
  });

  it("names every transport when mail must leave and none is set", () => {
    // Each row's variable, in the table's order, then how to set each, in the same order.
    const inOrder = (parts: string[]) =>
      new RegExp(parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*"), "s");
    expect(() => createMailer({}, options)).toThrow(
      inOrder([
        ...TRANSPORTS.map((transport) => transport.variable),
        "must be set on Supabase (supabase secrets set",
        ...TRANSPORTS.map((transport) => transport.example),
      ]),
    );
  });
});
