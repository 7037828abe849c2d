import { HOSTILE_SENDER_NAMES, mailboxesOf, shownName } from "../../../../../test/support/mailboxes.ts";
import { parseConfig } from "../../config.ts";
import { displayName, formatMailbox, mailbox, parseMailbox } from "../mailbox.ts";

const address = "hello@thepurposeeffect.example";

describe("the sender as one mailbox", () => {
  it("writes a name of plain words as it is, other ASCII quoted, anything else as encoded-words", () => {
    expect(formatMailbox(mailbox("Effect of the Day", address))).toBe(`Effect of the Day <${address}>`);
    expect(formatMailbox(mailbox("", address))).toBe(address);
    expect(displayName("Acme, Inc.")).toBe('"Acme, Inc."');
    expect(displayName('Say "hi" \\ bye')).toBe('"Say \\"hi\\" \\\\ bye"');
    expect(displayName("Café")).toBe("=?UTF-8?B?Q2Fmw6k=?=");
    // Bare, `=?` would start an encoded-word.
    expect(displayName("=?x?")).toBe('"=?x?"');
    for (const word of displayName("新聞の効果、毎日".repeat(6)).split(" "))
      expect(word.length).toBeLessThanOrEqual(75);
  });

  it("gives one mailbox with our address for any name, as a mail client reads it", async () => {
    for (const name of HOSTILE_SENDER_NAMES)
      expect(await mailboxesOf(formatMailbox(mailbox(name, address)))).toEqual([
        { name: shownName(name), address },
      ]);
  });
});

describe("MAIL_FROM", () => {
  it("takes an address, with a plain, quoted or non-ASCII name", () => {
    expect(parseMailbox(address)).toEqual({ name: "", address });
    expect(parseMailbox(`Effect of the Day <${address}>`)).toEqual({ name: "Effect of the Day", address });
    expect(parseMailbox(`"Acme, Inc. \\"A\\"" <${address}>`)).toEqual({ name: 'Acme, Inc. "A"', address });
    expect(parseMailbox(`Zoë's Café <${address}>`)).toEqual({ name: "Zoë's Café", address });
    expect(parseConfig({ MAIL_FROM: `J. Doe <${address}>` }).mailFrom).toEqual({ name: "J. Doe", address });
  });

  it("refuses anything but one mailbox, naming the variable and not the value", () => {
    for (const value of [
      `CEO <ceo@bank.example>, x <${address}>`,
      `Acme, Inc. <${address}>`,
      `a@b.example, ${address}`,
      `team: ${address};`,
      `Name (comment) <${address}>`,
      `"unclosed <${address}>`,
      `=?UTF-8?B?Q2Fmw6k=?= <${address}>`,
      "no address",
      `<${address}`,
    ]) {
      expect(parseMailbox(value)).toBeNull();
      expect(() => parseConfig({ MAIL_FROM: value })).toThrow(/^MAIL_FROM must be one address/);
    }
  });
});
