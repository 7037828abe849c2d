import { maskAddresses, maskEmail } from "../../logger.ts";
import { checkEmail, mailboxKey, WHATWG_EMAIL } from "../email-address.ts";

// What a browser's <input type=email> accepts and rejects (the WHATWG "valid e-mail address").
const ACCEPTED = [
  "simple@example.com",
  "very.common@example.com",
  "user.name+tag+sorting@example.com",
  "name/surname@example.com",
  "mailhost!username@example.org",
  "user%example.com@example.org",
  "user-@example.org",
  "x@example.com",
  "admin@localhost",
  "a@b",
  "john..doe@example.com",
  ".leading-dot@example.com",
  "=cmd@example.com",
  "o'brien@example.ie",
  "user@sub-domain.example-1.co.uk",
  `user@${"a".repeat(63)}.com`,
  "UPPER@EXAMPLE.COM",
];

const REJECTED = [
  "plainaddress",
  "abc.example.com",
  "a@b@c@example.com",
  'a"b(c)d,e:f;g<h>i[j\\k]l@example.com',
  'just"not"right@example.com',
  '"quoted"@example.com',
  "this is@example.com",
  "i.like.underscores@but_they_are_not_allowed_in_this_part",
  "user@-example.com",
  "user@example-.com",
  "user@example..com",
  "user@.example.com",
  "user@example.com.",
  "@example.com",
  "user@",
  "üser@example.com",
  "user@bücher.de",
  "user@[192.168.0.1]",
  `user@${"a".repeat(64)}.com`,
  "user@exa mple.com",
];

describe("the address rule", () => {
  it.each(ACCEPTED)("accepts %s as the browser does", (address) => {
    expect(WHATWG_EMAIL.test(address)).toBe(true);
    expect(checkEmail(address)).toMatchObject({ ok: true });
  });

  it.each(REJECTED)("rejects %s as the browser does", (address) => {
    expect(checkEmail(address)).toEqual({ ok: false, reason: "invalid" });
  });

  it("asks for an address when there is none", () => {
    expect(checkEmail("")).toEqual({ ok: false, reason: "missing" });
    expect(checkEmail("   ")).toEqual({ ok: false, reason: "missing" });
    expect(checkEmail(undefined)).toEqual({ ok: false, reason: "missing" });
    expect(checkEmail(42)).toEqual({ ok: false, reason: "missing" });
    expect(checkEmail(["a@b.c"])).toEqual({ ok: false, reason: "missing" });
  });

  it("takes 254 characters and refuses 255", () => {
    const at254 = `${"a".repeat(242)}@example.com`;
    expect(at254).toHaveLength(254);
    expect(checkEmail(at254)).toEqual({ ok: true, email: at254 });
    expect(checkEmail(`a${at254}`)).toEqual({ ok: false, reason: "too_long" });
  });
});

describe("normalisation", () => {
  it("trims the address and lower-cases its domain, keeping the local part as typed", () => {
    expect(checkEmail("  Ann.Lee@Example.COM \t")).toEqual({ ok: true, email: "Ann.Lee@example.com" });
  });

  it("drops newlines inside the value, as the browser's sanitization does", () => {
    expect(checkEmail("ann\n@example.com\r\n")).toEqual({ ok: true, email: "ann@example.com" });
  });

  it("does not trim non-ASCII spaces, which the browser keeps and then rejects", () => {
    expect(checkEmail("\u00a0ann@example.com")).toEqual({ ok: false, reason: "invalid" });
  });
});

describe("addresses in logs", () => {
  it("keeps the first letter and the domain only", () => {
    expect(maskEmail("ann.lee@example.com")).toBe("a•••@example.com");
    expect(maskEmail("nonsense")).toBe("•••");
  });
});

describe("addresses in logged text", () => {
  it("masks every address in a provider's error text", () => {
    expect(maskAddresses("550 5.1.1 <Jane.Doe@example.com>: Recipient address rejected")).toBe(
      "550 5.1.1 <J•••@example.com>: Recipient address rejected",
    );
    expect(maskAddresses("to ann+x@a.example and bob@b.example.org failed")).toBe(
      "to a•••@a.example and b•••@b.example.org failed",
    );
  });

  it("leaves text without an address, and masked text, as it is", () => {
    expect(maskAddresses("connect ECONNREFUSED 127.0.0.1:2525")).toBe("connect ECONNREFUSED 127.0.0.1:2525");
    expect(maskAddresses("a•••@example.com")).toBe("a•••@example.com");
  });
});

describe("the mailbox of an address", () => {
  it("is one for every +tag and every spelling of the local part's case", () => {
    const mailbox = mailboxKey("victim@example.com");
    for (const variant of ["victim+11@example.com", "Victim+20@Example.COM", "VICTIM@example.com"])
      expect(mailboxKey(variant)).toBe(mailbox);
  });

  it("folds Gmail's dots and googlemail.com into one inbox, and no one else's dots", () => {
    const gmail = mailboxKey("jane.doe@gmail.com");
    for (const variant of ["janedoe@gmail.com", "J.a.n.e.D.o.e+news@GoogleMail.com", "jane.doe+1@gmail.com"])
      expect(mailboxKey(variant)).toBe(gmail);
    expect(gmail).toBe("janedoe@gmail.com");
    expect(mailboxKey("jane.doe@example.com")).not.toBe(mailboxKey("janedoe@example.com"));
  });

  it("keeps different people apart", () => {
    expect(mailboxKey("victim@example.com")).not.toBe(mailboxKey("victim2@example.com"));
    expect(mailboxKey("victim@example.com")).not.toBe(mailboxKey("victim@example.org"));
    // A local part that starts with + has no tag to drop.
    expect(mailboxKey("+x@example.com")).toBe("+x@example.com");
  });
});
