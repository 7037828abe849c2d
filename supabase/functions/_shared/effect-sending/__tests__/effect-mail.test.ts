import { parseConfig } from "../../config.ts";
import { contentIdentity } from "../../../../../test/support/effect-fixtures.ts";
import { mailSettings } from "../../mail/list-headers.ts";
import { classifySendError, createMailPace } from "../delivery-decisions.ts";
import { effectMail, parseEdition } from "../edition.ts";
import { dueEditionDate, parseSendingConfig } from "../sending-config.ts";

const edition = {
  date: "2026-11-23",
  subject: "Effect of the Day: Show up",
  html: '<p>Hi</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
  text: "Hi\nUnsubscribe: {{unsubscribe_url}}\n",
  url: "https://site.example/effects/2026-11-23/",
};

describe("an Effect's mail for one recipient", () => {
  const settings = mailSettings(
    parseConfig({
      SITE_URL: "https://site.example/news&views",
      FUNCTIONS_URL: "https://fn.example/functions/v1",
    }),
    contentIdentity(),
  );

  it("puts the recipient's own link in both parts, escaped in HTML, and the one-click headers", () => {
    const mail = effectMail(settings, edition, { to: "ann@example.com", unsubscribeToken: "T".repeat(43) });
    expect(mail.text).toContain(
      `Unsubscribe: https://site.example/news&views/?unsubscribe=${"T".repeat(43)}`,
    );
    expect(mail.html).toContain(`href="https://site.example/news&amp;views/?unsubscribe=${"T".repeat(43)}"`);
    expect(mail.headers["List-Unsubscribe"]).toBe(
      `<https://fn.example/functions/v1/unsubscribe?token=${"T".repeat(43)}>`,
    );
    expect(mail.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(mail.headers["List-Id"]).toBe("Effect of the Day <effect-of-the-day.site.example>");
  });

  it("refuses a mail.json with a missing field, another day, or no unsubscribe placeholder", () => {
    expect(() => parseEdition({ ...edition, subject: "" }, edition.date, "mail.json")).toThrow(
      /"subject" is missing/,
    );
    expect(() => parseEdition(edition, "2026-11-24", "mail.json")).toThrow(
      /is the Effect of 2026-11-23, not of 2026-11-24/,
    );
    expect(() => parseEdition({ ...edition, text: "Hi" }, edition.date, "mail.json")).toThrow(
      /"text" has no \{\{unsubscribe_url\}\}/,
    );
    expect(parseEdition(edition, edition.date, "mail.json")).toEqual(edition);
  });
});

describe("what an SMTP error means", () => {
  const smtpError = (responseCode: number, command: string) =>
    Object.assign(new Error(`${responseCode} no`), { responseCode, command });

  it("fails a recipient the server refuses with a 5xx for good", () => {
    expect(classifySendError(smtpError(550, "RCPT TO")).kind).toBe("permanent");
    expect(classifySendError(smtpError(554, "DATA")).kind).toBe("permanent");
  });

  it("retries a 4xx, a connection failure, and a 5xx about our own account or sender", () => {
    expect(classifySendError(smtpError(451, "RCPT TO")).kind).toBe("temporary");
    expect(
      classifySendError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNECTION" })).kind,
    ).toBe("temporary");
    expect(classifySendError(smtpError(535, "AUTH PLAIN")).kind).toBe("temporary");
    expect(classifySendError(smtpError(553, "MAIL FROM")).kind).toBe("temporary");
  });
});

describe("the one global rate", () => {
  it("spaces calls 1/rate apart whatever their concurrency, and 0 means no limit", () => {
    let now = 1_000;
    const limiter = createMailPace(10, () => now);
    expect([limiter.reserve(), limiter.reserve(), limiter.reserve()]).toEqual([0, 100, 200]);
    now += 1_000;
    expect(limiter.reserve()).toBe(0);
    const unlimited = createMailPace(0, () => now);
    expect([unlimited.reserve(), unlimited.reserve()]).toEqual([0, 0]);
  });
});

describe("SEND_AT", () => {
  it("is due from HH:MM in the brand's time zone, for that zone's day", () => {
    const { sendAt } = parseSendingConfig({ SEND_AT: "06:30" });
    const zone = "America/New_York";
    expect(dueEditionDate(sendAt, zone, new Date("2026-11-23T11:29:00Z"))).toBeNull();
    expect(dueEditionDate(sendAt, zone, new Date("2026-11-23T11:30:00Z"))).toBe("2026-11-23");
    // 01:00 UTC on the 24th is still the 23rd in New York.
    expect(dueEditionDate(sendAt, zone, new Date("2026-11-24T01:00:00Z"))).toBe("2026-11-23");
  });

  it("refuses a time it cannot read", () => {
    expect(() => parseSendingConfig({ SEND_AT: "6:30" })).toThrow(/SEND_AT must be a time of day as HH:MM/);
    expect(parseSendingConfig({}).sendAt).toBeNull();
  });
});
