import {
  forwardedClientAddress,
  parseTrustedHops,
  rateLimitSubject,
  supabaseClientAddress,
} from "../client-address.ts";

describe("the client's address behind proxies", () => {
  it("is the socket's when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(forwardedClientAddress("198.51.100.1", "203.0.113.7", 0)).toBe("203.0.113.7");
  });

  it("is the entry the trusted proxy appended, not the one the client wrote on the left", () => {
    // The probe: the client varies the left entry; the proxy appends the real address.
    for (let n = 1; n <= 12; n++)
      expect(forwardedClientAddress(`198.51.100.${n}, 203.0.113.7`, "10.0.0.2", 1)).toBe("203.0.113.7");
  });

  it("counts hops from the right when several proxies are trusted", () => {
    const chain = "198.51.100.9, 203.0.113.7, 192.0.2.10";
    expect(forwardedClientAddress(chain, "10.0.0.2", 2)).toBe("203.0.113.7");
    expect(forwardedClientAddress(chain, "10.0.0.2", 3)).toBe("198.51.100.9");
  });

  it("falls back to the socket when the header is missing, too short or not an address", () => {
    expect(forwardedClientAddress(null, "10.0.0.2", 1)).toBe("10.0.0.2");
    expect(forwardedClientAddress("203.0.113.7", "10.0.0.2", 2)).toBe("10.0.0.2");
    expect(forwardedClientAddress("203.0.113.7, not-an-address", "10.0.0.2", 1)).toBe("10.0.0.2");
  });

  it("reads IPv6 entries", () => {
    expect(forwardedClientAddress("::1, 2001:db8::5", "10.0.0.2", 1)).toBe("2001:db8::5");
  });
});

describe("what a rate limit counts", () => {
  it("counts an IPv4 client by its address, also when written IPv4-mapped", () => {
    expect(rateLimitSubject("203.0.113.7")).toBe("203.0.113.7");
    expect(rateLimitSubject("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts every address of one IPv6 /64 as one client", () => {
    const subject = rateLimitSubject("2001:db8:1:2::1");
    for (const other of [
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
      "2001:0db8:0001:0002:0:0:0:abcd",
      "[2001:db8:1:2::9]",
    ])
      expect(rateLimitSubject(other)).toBe(subject);
    expect(subject).toBe("2001:db8:1:2::/64");
    expect(rateLimitSubject("2001:db8:1:3::1")).not.toBe(subject);
  });

  it("leaves what is not an address as it is", () => {
    expect(rateLimitSubject("unknown")).toBe("unknown");
    expect(rateLimitSubject("1:2:3")).toBe("1:2:3");
  });
});

describe("the client of a request on Supabase", () => {
  it("is Cloudflare's connecting address, which a client cannot set", () => {
    const headers = new Headers({
      "cf-connecting-ip": "203.0.113.7",
      "x-forwarded-for": "198.51.100.1, 203.0.113.7",
    });
    expect(supabaseClientAddress(headers, "10.0.0.2")).toBe("203.0.113.7");
  });

  it("is the gateway's rightmost X-Forwarded-For entry without it, never the client-written left one", () => {
    const headers = new Headers({ "x-forwarded-for": "198.51.100.1, 203.0.113.7" });
    expect(supabaseClientAddress(headers, "10.0.0.2")).toBe("203.0.113.7");
    expect(supabaseClientAddress(new Headers(), "10.0.0.2")).toBe("10.0.0.2");
  });
});

describe("TRUST_PROXY", () => {
  it("is a number of proxies; unset, false and 0 trust none, true trusts one", () => {
    expect([undefined, "", "0", "false"].map(parseTrustedHops)).toEqual([0, 0, 0, 0]);
    expect(["1", "true", " 2 "].map(parseTrustedHops)).toEqual([1, 1, 2]);
  });

  it("refuses anything else", () => {
    for (const value of ["yes", "-1", "1.5", "99"])
      expect(() => parseTrustedHops(value)).toThrow(/TRUST_PROXY/);
  });
});
