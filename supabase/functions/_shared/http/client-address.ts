/**
 * Who a request comes from, for rate limits. Behind proxies, `X-Forwarded-For` is a list each
 * proxy appends to: the client writes the left side (anything it likes), so the only entry to
 * believe is the one our outermost trusted proxy appended, counted from the right. With
 * `trustedHops` proxies in front, that is the `trustedHops`-th entry from the right.
 * IPv6 clients are counted by their /64: one home or one server gets a whole /64, so counting
 * single addresses would let one client rotate through 2^64 of them.
 */
import { ConfigError } from "../contract/variables.ts";

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]+$/i;

const isIpAddress = (value: string): boolean => IPV4.test(value) || (value.includes(":") && IPV6.test(value));

/**
 * The client's address: the socket's when no proxy is trusted, else the entry the outermost
 * trusted proxy appended to `x-forwarded-for` (the socket's when that entry is missing or not an
 * address: a request that did not come through the proxies).
 */
export function forwardedClientAddress(
  forwardedFor: string | null | undefined,
  socketAddress: string,
  trustedHops: number,
): string {
  if (trustedHops < 1 || !forwardedFor) return socketAddress;
  const entries = forwardedFor
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const entry = entries[entries.length - trustedHops];
  return entry !== undefined && isIpAddress(entry) ? entry : socketAddress;
}

/** Eight groups of an IPv6 address, `::` expanded and an embedded IPv4 tail turned into two groups. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    if (!IPV4.test(v4[1])) return null;
    const [a, b, c, d] = v4[1].split(".").map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

/**
 * What a rate limit counts: an IPv4 address as it is (also when written IPv4-mapped,
 * `::ffff:198.51.100.7`), an IPv6 address by its /64 (`2001:db8:1:2::/64`).
 */
export function rateLimitSubject(address: string): string {
  if (IPV4.test(address)) return address;
  const groups = address.includes(":") ? ipv6Groups(address.replace(/^\[|\]$/g, "").split("%")[0]) : null;
  if (!groups) return address;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join(".");
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/**
 * `TRUST_PROXY`: how many reverse proxies stand in front of the local stack. Unset or `0`: none,
 * the socket's address is the client's; `true` is read as 1.
 */
export function parseTrustedHops(value: string | undefined): number {
  const text = value?.trim().toLowerCase() ?? "";
  if (text === "" || text === "false") return 0;
  if (text === "true") return 1;
  const hops = Number(text);
  if (!Number.isInteger(hops) || hops < 0 || hops > 10)
    throw new ConfigError("TRUST_PROXY must be the number of proxies in front of the stack, 0 to 10");
  return hops;
}

/**
 * The client of a request to a Supabase Edge Function. Supabase's API gateway sits behind
 * Cloudflare, which sets `cf-connecting-ip` to the address that connected to it and overwrites
 * any value a client sent; `x-forwarded-for` there keeps whatever the client wrote on its left
 * (reported in Supabase's discussions #34647 and #52040). So: `cf-connecting-ip`; without it, the
 * entry the gateway appended to `x-forwarded-for` (the rightmost); else the socket's.
 */
export function supabaseClientAddress(headers: Headers, socketAddress: string): string {
  const connecting = headers.get("cf-connecting-ip")?.trim();
  if (connecting && isIpAddress(connecting)) return connecting;
  return forwardedClientAddress(headers.get("x-forwarded-for"), socketAddress, 1);
}
