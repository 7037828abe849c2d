import { confirmationMail } from "../confirmation-mail.ts";
import type { MailSettings } from "../list-headers.ts";

const settings: MailSettings = {
  siteUrl: "https://thepurposeeffect.example",
  functionsUrl: "https://project.supabase.co/functions/v1",
  mailFrom: "Effect of the Day <newsletter@thepurposeeffect.example>",
  newsletterName: "Effect of the Day",
  brandName: "The Purpose Effect",
  listId: "Effect of the Day <effect-of-the-day.thepurposeeffect.example>",
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

  it("says when the link expires and to ignore the mail when it was not you", () => {
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain("This link expires on Mon, 23 Nov 2026 12:00:00 GMT.");
      expect(part).toContain("If it wasn't you who signed up, ignore this mail");
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
