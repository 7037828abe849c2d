/**
 * The dsn route's reader on its own, a report at a time: which recipient a delivery status
 * notification names (RFC 3464), what its status code means for the list (RFC 3463, the table in
 * `rfc3463.ts`), and what a check of whose mail it was can read of it (the returned original's
 * headers, where the report was addressed). The route itself, with the database, is tested in
 * `server/__tests__/mail-events.test.ts` and against real mail in `bounce-corpus.test.ts`.
 */
import { arfMail, dsnMail } from "../../../../../test/support/mail-events.ts";
import { readDsnEvent } from "../dsn.ts";
import { classifyFailure } from "../rfc3463.ts";

const now = new Date("2026-11-25T10:00:00Z");
const read = (mail: string) => readDsnEvent(new TextEncoder().encode(mail), now);
const kinds = async (mail: string) => (await read(mail)).events.map((event) => event.kind);

describe("what a failed recipient's status means (RFC 3463)", () => {
  it.each([
    ["5.1.1", "bounce"],
    ["5.1.10", "bounce"],
    ["5.2.1", "bounce"],
    ["5.1.7", "sender_refusal"],
    ["5.1.8", "sender_refusal"],
    ["5.2.2", "soft_bounce"],
    ["5.3.0", "soft_bounce"],
    ["5.4.4", "soft_bounce"],
    ["5.5.3", "soft_bounce"],
    ["5.6.0", "sender_refusal"],
    ["5.7.1", "sender_refusal"],
    ["5.7.26", "sender_refusal"],
    ["4.7.1", "sender_refusal"],
    ["4.1.1", "soft_bounce"],
    ["4.2.1", "soft_bounce"],
    ["4.4.7", "soft_bounce"],
  ])("%s is a %s", async (status, kind) => {
    // A diagnostic without words: the code alone decides.
    const reply = status.startsWith("5") ? "550" : "450";
    expect(await kinds(dsnMail("ann@example.com", { status, diagnostic: `${reply} ${status}` }))).toEqual([
      kind,
    ]);
  });

  it("takes the diagnostic's code when the Status is missing or undefined (X.0.0), the server's own reply's first", () => {
    expect(classifyFailure(undefined, "smtp; 550 5.1.1 <ann@example.com>: user unknown")).toEqual({
      kind: "bounce",
      code: "5.1.1",
    });
    expect(classifyFailure("5.0.0", "smtp; 550 5.7.1 blocked by policy")).toEqual({
      kind: "sender_refusal",
      code: "5.7.1",
    });
    expect(
      classifyFailure(
        "5.0.0 (permanent failure)",
        "smtp; 5.1.0 - Unknown address error 550-'5.2.2 Mailbox Full'",
      ),
    ).toEqual({ kind: "soft_bounce", code: "5.2.2" });
    // A reply code alone says only "permanent"; its words say whose fault it is.
    expect(classifyFailure(undefined, "smtp; 550 Requested action not taken")).toEqual({
      kind: "soft_bounce",
      code: "550",
    });
    expect(classifyFailure("5.2.1", "smtp; 550 5.1.1 user unknown").code).toBe("5.2.1");
  });

  it("ignores recipients that were only delayed, delivered or relayed", async () => {
    for (const action of ["delayed", "delivered", "relayed", "expanded"])
      expect(await read(dsnMail("ann@example.com", { action, status: "4.4.1" }))).toMatchObject({
        events: [],
        outcome: "ignored:no_failed_recipient",
      });
  });
});

describe("what a report's words say where its code does not decide (failure-text.ts)", () => {
  it.each([
    // [Status, the Diagnostic-Code after "smtp; " (null: none), what the list makes of it]
    ["5.0.0", "550 Unknown user ann@example.com", "bounce"],
    [null, "550 ann@example.com... No such user", "bounce"],
    ["5.0.0", "550 No such domain", "bounce"],
    ["5.4.4", "Invalid domain", "bounce"],
    ["5.4.4 (Illegal host/domain name found)", null, "bounce"],
    ["5.4.1", "550 5.4.1 Recipient address rejected: Access denied", "bounce"],
    ["5.5.0", "550 Requested action not taken: mailbox unavailable", "bounce"],
    ["5.0.0", "552 Mailbox full", "soft_bounce"],
    ["5.0.0", "550 Message rejected: IP listed on Spamhaus", "sender_refusal"],
    [
      "5.1.0",
      "550 5.1.0 192.0.2.1 is not allowed to send from <example.net> per its SPF record",
      "sender_refusal",
    ],
    // Never at once: a transient class, however worded; the receiving server's own code over the relay's Status.
    ["4.0.0", "450 User unknown", "soft_bounce"],
    ["5.0.0", "550 5.7.1 User unknown", "sender_refusal"],
    ["5.1.1", "550 5.7.1 IP address blacklisted by recipient", "sender_refusal"],
    ["5.1.1", "552 5.2.2 Over quota", "soft_bounce"],
    [
      "5.2.1",
      "550-5.2.1 The user you are trying to contact is receiving mail at a rate that 550-5.2.1 prevents additional messages",
      "soft_bounce",
    ],
    // A filter's refusal after DATA names no address, or comes from a carrier that says so.
    ["5.0.0", "550 : User unknown", "soft_bounce"],
    ["5.0.0", "550 Unknown user ann@docomo.ne.jp", "soft_bounce"],
  ])("%s with %j is a %s", async (status, diagnostic, kind) => {
    const recipient = diagnostic?.includes("docomo") ? "ann@docomo.ne.jp" : "ann@example.com";
    expect(await kinds(dsnMail(recipient, { status, diagnostic }))).toEqual([kind]);
  });

  it("reads the report's own text when the recipient's fields have none (Gmail's 'Address not found')", async () => {
    const gmail = dsnMail("ann@example.com", {
      status: "5.0.0",
      diagnostic: null,
      text: "** Address not found **\r\n\r\nYour message wasn't delivered to ann@example.com because the address couldn't be found.",
    });
    expect(await kinds(gmail)).toEqual(["bounce"]);
  });

  it("keeps a bare 'user unknown' after DATA counted by day, and believes plainer words there", async () => {
    const afterData = (diagnostic: string, text: string) =>
      kinds(dsnMail("ann@example.com", { status: "5.0.0", diagnostic, text }));
    expect(
      await afterData(
        "550 Unknown user ann@example.com",
        "550 Unknown user ann@example.com (in reply to end of DATA\r\n    command)",
      ),
    ).toEqual(["soft_bounce"]);
    expect(
      await afterData(
        "554 delivery error: dd This user doesn't have a yahoo.com account",
        ">>> DATA\r\n<<< 554 delivery error: dd This user doesn't have a yahoo.com account",
      ),
    ).toEqual(["bounce"]);
  });

  it("keeps 'no such user' counted by day in a report a mail filter wrote, or in a Diagnostic-Code that is no server's reply", async () => {
    const byFilter = dsnMail("ann@example.com", {
      status: "5.0.0",
      diagnostic: "550 ann@example.com... No such user",
      outer: ["X-Mailer: SurfControl E-mail Filter"],
    });
    expect(await kinds(byFilter)).toEqual(["soft_bounce"]);
    // The same words from a mail server's own report suppress.
    expect(
      await kinds(
        dsnMail("ann@example.com", { status: "5.0.0", diagnostic: "550 ann@example.com... No such user" }),
      ),
    ).toEqual(["bounce"]);
    // RFC 3464's `diagnostic-type ;` missing and no reply code: the reporting MTA's gloss.
    const gloss = dsnMail("ann@example.com", {
      status: "5.0.0",
      diagnostic: "The email account that you tried to reach does not exist.",
    }).replace("smtp; The email", "The email");
    expect(await kinds(gloss)).toEqual(["soft_bounce"]);
    // Without a type but with the server's reply and enhanced code (SendGrid's), the code decides.
    const sendgrid = dsnMail("ann@example.com", {
      status: "5.0.0",
      diagnostic: "550 5.1.1 <ann@example.com>... User Unknown",
    }).replace("smtp; 550", "550");
    expect(await kinds(sendgrid)).toEqual(["bounce"]);
  });

  it("decodes a diagnostic in the report's charset: Domino's directory miss in ISO-2022-JP", async () => {
    const domino = dsnMail("ann@example.com", {
      status: "5.0.0",
      diagnostic:
        "X-Notes; User Ann (ann@example.com) \x1b$B$O\x1b(B Domino \x1b$B%G%#%l%/%H%j$K$O8+$D$+$j$^$;$s!#\x1b(B",
    }).replace("smtp; X-Notes;", "X-Notes;");
    const { events } = await read(domino);
    expect(events.map((event) => event.kind)).toEqual(["bounce"]);
    expect(events[0].detail).toContain("Domino ディレクトリには見つかりません");
  });

  it("reads an address with a code point past Unicode as none, never an error", async () => {
    const { events } = await read(
      dsnMail("ann@example.com", {
        global: true,
        originalRecipient: null,
        finalRecipient: "utf-8; a\\x{110000}@b.example",
      }),
    );
    // Kept with no address: only a proof of whose mail it was (report-trust.ts) can name its reader.
    expect(events.map((event) => [event.kind, event.recipient])).toEqual([["bounce", ""]]);
  });
});

describe("which recipient a report names", () => {
  it("prefers the Original-Recipient to the Final-Recipient (a forwarded address fails at its end)", async () => {
    const { events } = await read(
      dsnMail("ann@example.com", { finalRecipient: "rfc822; ann.forwarded@elsewhere.example" }),
    );
    expect(events.map((event) => event.recipient)).toEqual(["ann@example.com"]);
  });

  it("strips a source route and angle brackets, and reads the Final-Recipient alone", async () => {
    const { events } = await read(
      dsnMail("ann@example.com", {
        originalRecipient: null,
        finalRecipient: "RFC822; <@relay1.example,@relay2.example:Ann@Example.com>",
      }),
    );
    expect(events.map((event) => event.recipient)).toEqual(["Ann@Example.com"]);
  });

  it("decodes an address written as an RFC 2047 encoded word (sendmail does, for a UTF-8 local part)", async () => {
    const { events } = await read(
      dsnMail("ann@example.com", {
        originalRecipient: null,
        finalRecipient: "RFC822; =?utf-8?B?8J+QiPCfkIg=?=@example.org",
      }),
    );
    expect(events.map((event) => event.recipient)).toEqual(["\u{1F408}\u{1F408}@example.org"]);
  });

  it("reads a report with one field block, and RFC 6533's message/global-delivery-status", async () => {
    expect(await kinds(dsnMail("ann@example.com", { singleBlock: true }))).toEqual(["bounce"]);
    const global = await read(
      dsnMail("ann@example.com", {
        global: true,
        originalRecipient: null,
        finalRecipient: "utf-8; \\x{E9}l\\x{E8}ve@example.com",
      }),
    );
    expect(global.events.map((event) => [event.kind, event.recipient])).toEqual([
      ["bounce", "élève@example.com"],
    ]);
    expect(global.report?.original?.partType).toBe("message/global-headers");
  });

  it("names every Original-Rcpt-To of a complaint, else the reported mail's To (attached as message/rfc822)", async () => {
    const named = await read(arfMail("ann@example.com"));
    expect(named.events.map((event) => [event.kind, event.recipient])).toEqual([
      ["complaint", "ann@example.com"],
    ]);
    const inOriginal = await read(arfMail("bob@example.com", { inHeadersOnly: true }));
    expect(inOriginal.events.map((event) => event.recipient)).toEqual(["bob@example.com"]);
  });

  it("unsubscribes for an opt-out report, counts an auth-failure report against the sender, ignores not-spam", async () => {
    expect(await kinds(arfMail("ann@example.com", { feedbackType: "opt-out" }))).toEqual(["complaint"]);
    expect(await kinds(arfMail("ann@example.com", { feedbackType: "auth-failure" }))).toEqual([
      "sender_refusal",
    ]);
    expect(await read(arfMail("ann@example.com", { feedbackType: "not-spam" }))).toMatchObject({
      events: [],
      outcome: "ignored:feedback_not-spam",
    });
  });

  it("reads a mail that is no report as ignored, and refuses a body that is no mail", async () => {
    expect(
      await read("From: ann@example.com\r\nSubject: I am away\r\n\r\nBack on Monday.\r\n"),
    ).toMatchObject({
      events: [],
      outcome: "ignored:not_a_report",
    });
    await expect(read('{"type": "email.bounced"}')).rejects.toMatchObject({ status: 400 });
  });
});

describe("what the reader exposes for a check of whose mail it was", () => {
  it("gives the returned original's headers and where the report was addressed", async () => {
    const { report } = await read(
      dsnMail("ann@example.com", {
        outer: [
          "Delivered-To: bounces+ann=example.com.abc123@mail.thepurposeeffect.example",
          "X-Original-To: bounces+abc123@mail.thepurposeeffect.example",
        ],
        original: [
          "Message-ID: <effect-2026-11-25.ann@thepurposeeffect.example>",
          "List-Unsubscribe: <https://www.thepurposeeffect.example/unsubscribe/?token=tok123>,",
          " <mailto:unsubscribe@thepurposeeffect.example?subject=tok123>",
        ],
      }),
    );
    expect(report?.type).toBe("delivery-status");
    expect(report?.addressedTo).toEqual({
      deliveredTo: ["bounces+ann=example.com.abc123@mail.thepurposeeffect.example"],
      xOriginalTo: ["bounces+abc123@mail.thepurposeeffect.example"],
      to: ["newsletter@thepurposeeffect.example"],
    });
    expect(report?.original).toMatchObject({
      partType: "text/rfc822-headers",
      messageId: "<effect-2026-11-25.ann@thepurposeeffect.example>",
      listUnsubscribe:
        "<https://www.thepurposeeffect.example/unsubscribe/?token=tok123>, <mailto:unsubscribe@thepurposeeffect.example?subject=tok123>",
      to: ["ann@example.com"],
    });
  });

  it("gives the headers of an original attached whole (message/rfc822), which a MIME parser would fold away", async () => {
    const { report } = await read(arfMail("ann@example.com", { inHeadersOnly: true }));
    expect(report?.type).toBe("feedback-report");
    expect(report?.original?.partType).toBe("message/rfc822");
    expect(report?.original?.to).toEqual(["ann@example.com"]);
    expect(report?.original?.headers.get("subject")).toEqual(["Effect of the Day"]);
  });
});
