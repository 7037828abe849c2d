import { contentIdentity } from "../../../../../test/support/effect-fixtures.ts";
import { momentLabel } from "../../contract/calendar-day.ts";
import { confirmationMail } from "../confirmation-mail.ts";
import type { MailSettings } from "../list-headers.ts";

const { mails } = contentIdentity();

const settings: MailSettings = {
  siteUrl: "https://thepurposeeffect.example",
  functionsUrl: "https://project.supabase.co/functions/v1",
  mailFrom: { name: "Effect of the Day", address: "newsletter@thepurposeeffect.example" },
  newsletterName: "Effect of the Day",
  brandName: "The Purpose Effect",
  listId: "Effect of the Day <effect-of-the-day.thepurposeeffect.example>",
  timeZone: "America/New_York",
  mails,
};
const input = {
  to: "ann@example.com",
  confirmToken: "c".repeat(43),
  unsubscribeToken: "u".repeat(43),
  expiresAt: new Date("2026-11-23T12:00:00Z"),
};

describe("the confirmation mail", () => {
  const mail = confirmationMail(settings, input);

  it("names the newsletter in the subject and both parts", () => {
    expect(mail.subject).toBe("Confirm your subscription to Effect of the Day");
    expect(mail.text).toContain("Effect of the Day, the daily newsletter from The Purpose Effect");
    expect(mail.html).toContain("Effect of the Day, the daily newsletter from The Purpose Effect");
  });

  it("links to the site's confirmation page in both parts", () => {
    const link = `https://thepurposeeffect.example/?confirm=${"c".repeat(43)}`;
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`href="${link}"`);
  });

  it("says when the link expires, in words in the brand's time zone, and to ignore the mail when it was not you", () => {
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain("This link expires on Monday, November 23 at 7:00 AM (Eastern Standard Time).");
      expect(part).toContain("If it wasn't you who signed up, ignore this mail");
    }
  });

  it("links the privacy page in its footer, beside the unsubscribe link", () => {
    expect(mail.html).toMatch(
      /<a class="pe-muted" href="https:\/\/thepurposeeffect\.example\/privacy\/"[^>]*>Your data and privacy<\/a>/,
    );
    expect(mail.text).toContain("Your data and privacy: https://thepurposeeffect.example/privacy/");
  });

  it("opens with a hidden preheader, and its button is a coloured, padded cell around the link", () => {
    expect(mail.html).toMatch(
      /<body[^>]*>\s*<div style="font-size:0;[^"]*mso-hide:all;">One click and Effect of the Day starts arriving\. The link works until Monday, November 23 at 7:00 AM \(Eastern Standard Time\)\./,
    );
    const link = `https://thepurposeeffect.example/?confirm=${"c".repeat(43)}`;
    expect(mail.html).toMatch(
      new RegExp(
        `<td align="center" bgcolor="#f59e0b" style="padding:14px 24px;[^"]*"><a href="${link.replace(/[?.]/g, "\\$&")}"[^>]*>Confirm your subscription</a></td>`,
      ),
    );
    // The address itself is only in the plain-text part: a raw link cannot widen the HTML.
    expect(mail.html.split(link)).toHaveLength(2);
    // Outlook drops padding elsewhere: only cells have it.
    expect(mail.html).not.toMatch(/<(p|div|a|h1)\b[^>]*style="[^"]*padding/);
  });

  it("takes every word from the content's copy, with its placeholders filled in", () => {
    const edited = confirmationMail(
      {
        ...settings,
        mails: {
          ...mails,
          confirmation: {
            ...mails.confirmation,
            subject: "{brand}: one click for {newsletter}",
            buttonLabel: "Yes, sign me up",
            expiryText: "Valid until {expiry}",
          },
          footer: {
            reasonText: "Sent for {newsletter}.",
            unsubscribeLabel: "Stop",
            privacyLabel: "Your data at {brand}",
          },
        },
      },
      input,
    );
    expect(edited.subject).toBe("The Purpose Effect: one click for Effect of the Day");
    for (const part of [edited.text, edited.html]) {
      expect(part).toContain("Yes, sign me up");
      expect(part).toContain("Valid until Monday, November 23 at 7:00 AM (Eastern Standard Time)");
      expect(part).toContain("Sent for Effect of the Day.");
      expect(part).not.toMatch(/\{(brand|newsletter|expiry)\}/);
    }
  });

  it("carries the list headers for one-click unsubscribe", () => {
    expect(mail.headers).toEqual({
      "List-Id": "Effect of the Day <effect-of-the-day.thepurposeeffect.example>",
      "List-Unsubscribe": `<https://project.supabase.co/functions/v1/unsubscribe?token=${"u".repeat(43)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
    expect(mail.text).toContain(`https://thepurposeeffect.example/?unsubscribe=${"u".repeat(43)}`);
  });

  it("contains nothing of the visitor's but the recipient address", () => {
    expect(mail.to).toBe("ann@example.com");
    expect(mail.text).not.toContain("ann@example.com");
    expect(mail.html).not.toContain("ann@example.com");
  });

  it("escapes names in the HTML part", () => {
    const html = confirmationMail({ ...settings, brandName: "Tom & <Jerry>" }, input).html;
    expect(html).toContain("Tom &amp; &lt;Jerry&gt;");
    expect(html).not.toContain("<Jerry>");
  });
});

describe("a moment in a mail", () => {
  it("reads in words in the brand's time zone, daylight saving and the day's change included", () => {
    expect(momentLabel(new Date("2026-07-01T18:30:00Z"), "America/New_York")).toBe(
      "Wednesday, July 1 at 2:30 PM (Eastern Daylight Time)",
    );
    // 02:00 UTC on the 25th is still the 24th in New York.
    expect(momentLabel(new Date("2026-11-25T02:00:00Z"), "America/New_York")).toBe(
      "Tuesday, November 24 at 9:00 PM (Eastern Standard Time)",
    );
    expect(momentLabel(new Date("2026-11-25T02:00:00Z"), "Europe/London")).toBe(
      "Wednesday, November 25 at 2:00 AM (Greenwich Mean Time)",
    );
  });
});
