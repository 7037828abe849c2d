/**
 * The one parser of where a signup came from (`contract/signup-source.ts`): what each field keeps,
 * and that anything else (unknown, oversized, hostile, not a string) is dropped, never thrown.
 */
import {
  parseSignupSource,
  SIGNUP_SOURCE_FIELDS,
  SIGNUP_SOURCE_MAX_CHARS,
  type SignupSourceField,
} from "../../contract/signup-source.ts";
import { SIGNED_UP_ON_AN_EFFECT } from "../../../../../test/support/signup-source.ts";

const NONE = Object.fromEntries(SIGNUP_SOURCE_FIELDS.map((field) => [field, null]));

const only = (field: SignupSourceField, value: unknown) => parseSignupSource({ [field]: value })[field];

/** Per field: values kept, as given or as kept ([given, kept]). */
const KEPT: Record<SignupSourceField, (string | [string, string])[]> = {
  signup_form: ["dialog", "inline", "effect", "archive"],
  signup_page: ["/", "/effects/", "/effects/page/2/", "/caf%C3%A9/", "/a-b_c.d~e/"],
  referrer_host: ["www.youtube.com", ["WWW.YouTube.COM", "www.youtube.com"], "xn--bcher-kva.example"],
  utm_source: ["podcast", "vidéo-courte_😀", ["  Spring Sale 2026  ", "Spring Sale 2026"]],
  utm_medium: ["audio"],
  // Stored as text; the export makes a spreadsheet formula inert (csvField).
  utm_campaign: ["ep42", "=1+2"],
};

/** Per field: values dropped. */
const DROPPED: Record<SignupSourceField, string[]> = {
  signup_form: ["popup", "Dialog", " dialog", "", "footer"],
  signup_page: [
    "effects/",
    "https://evil.example/",
    "//evil.example/",
    "/?utm_source=x",
    "/#newsletter",
    "/a b/",
    "/<script>/",
    "/%zz/",
    "/\u0000",
    "/é/",
    "",
  ],
  referrer_host: [
    "https://www.youtube.com/",
    "www.youtube.com/watch?v=x",
    "www.youtube.com:443",
    "user@www.youtube.com",
    "-bad.example",
    "bad-.example",
    "two..dots.example",
    ".example",
    "[::1]",
    "bücher.example",
    `${"a".repeat(64)}.example`,
    "",
  ],
  utm_source: ["", "   ", "line\nbreak", "tab\there", "nul\u0000", "bidi\u202eevil", "lone\ud800"],
  utm_medium: ["<\u0007>"],
  utm_campaign: ["\u200b"],
};

describe("a signup's source", () => {
  it("keeps every field the site sends", () => {
    expect(parseSignupSource({ email: "reader@example.com", ...SIGNED_UP_ON_AN_EFFECT })).toEqual(
      SIGNED_UP_ON_AN_EFFECT,
    );
  });

  it("is all null for `{ email }` alone, and for fields of any other name", () => {
    expect(parseSignupSource({ email: "reader@example.com" })).toEqual(NONE);
    expect(parseSignupSource({ source: { signup_form: "dialog" }, utm_term: "x", utm_content: "y" })).toEqual(
      NONE,
    );
  });

  it.each(SIGNUP_SOURCE_FIELDS)("keeps what %s allows, and drops the rest", (field) => {
    for (const value of KEPT[field]) {
      const [given, kept] = typeof value === "string" ? [value, value] : value;
      expect({ given, kept: only(field, given) }).toEqual({ given, kept });
    }
    for (const given of DROPPED[field])
      expect({ given, kept: only(field, given) }).toEqual({ given, kept: null });
  });

  it("drops a value over its field's limit rather than cutting it", () => {
    for (const field of SIGNUP_SOURCE_FIELDS.filter((name) => name.startsWith("utm_"))) {
      const limit = SIGNUP_SOURCE_MAX_CHARS[field];
      expect(only(field, "x".repeat(limit))).toBe("x".repeat(limit));
      expect(only(field, "x".repeat(limit + 1))).toBeNull();
    }
    const longPage = `/${"a".repeat(SIGNUP_SOURCE_MAX_CHARS.signup_page)}`;
    expect(only("signup_page", longPage)).toBeNull();
    const longHost = Array.from({ length: 4 }, () => "a".repeat(63)).join(".");
    expect(longHost.length).toBeGreaterThan(SIGNUP_SOURCE_MAX_CHARS.referrer_host);
    expect(only("referrer_host", longHost)).toBeNull();
  });

  it("drops what is not a string, and never throws", () => {
    for (const value of [42, true, null, ["podcast"], { toString: () => "podcast" }])
      expect(only("utm_source", value)).toBeNull();
    const proto = JSON.parse('{"__proto__": {"signup_form": "dialog"}}') as Record<string, unknown>;
    expect(parseSignupSource(proto)).toEqual(NONE);
  });
});
