import { MailApiError, smtpFailureKind } from "../smtp-failure.ts";

const smtpError = (responseCode: number | undefined, command: string | undefined) =>
  Object.assign(new Error("refused"), { responseCode, command });

describe("an SMTP failure", () => {
  it("is permanent when the server refuses the recipient or the message with 5xx", () => {
    expect(smtpFailureKind(smtpError(550, "RCPT TO"))).toBe("permanent");
    expect(smtpFailureKind(smtpError(554, "DATA"))).toBe("permanent");
  });

  it("is temporary for 4xx replies, connection errors and timeouts", () => {
    expect(smtpFailureKind(smtpError(451, "RCPT TO"))).toBe("temporary");
    expect(smtpFailureKind(smtpError(421, "DATA"))).toBe("temporary");
    expect(smtpFailureKind(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(
      "temporary",
    );
    expect(smtpFailureKind(new Error("Greeting never received"))).toBe("temporary");
    expect(smtpFailureKind("a string")).toBe("temporary");
  });

  it("is temporary when the 5xx is about our own account or sender, not the address", () => {
    expect(smtpFailureKind(smtpError(535, "AUTH PLAIN"))).toBe("temporary");
    expect(smtpFailureKind(smtpError(553, "MAIL FROM"))).toBe("temporary");
    expect(smtpFailureKind(smtpError(554, "CONN"))).toBe("temporary");
  });
});

describe("an HTTP mail API's failure", () => {
  it("is the kind its transport read from the answer", () => {
    expect(smtpFailureKind(new MailApiError("Resend 422 validation_error: bad to", "permanent", 422))).toBe(
      "permanent",
    );
    expect(smtpFailureKind(new MailApiError("Resend 429 rate_limit_exceeded", "temporary", 429))).toBe(
      "temporary",
    );
  });
});
