/**
 * `npm run doctor`'s DNS checks: whether the sending domain publishes what receivers look up
 * before they accept bulk mail. SPF (RFC 7208) on the envelope's domain names the transport's
 * servers, DKIM's selectors hold a key (RFC 6376), DMARC (RFC 7489) has a policy, an SMTP
 * server's IP has forward-confirmed reverse DNS, the bounce address sits on the sending domain. Each finding says what to set. DNS is asked through
 * `node:dns/promises`' `Resolver`, at the servers given (tests point it at a stand-in).
 */
import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { type SendingDns, TRANSPORTS } from "../supabase/functions/_shared/hosts.ts";

export type Level = "ok" | "warn" | "fail";

/** One line of the report: its check, what was found, and what to set when it is not `ok`. */
export interface Finding {
  level: Level;
  check: string;
  text: string;
  fix?: string;
}

export interface DomainSetup {
  /** The From address's domain. */
  domain: string;
  /** What the transport mail leaves by needs in DNS (its row of `mail/transports.ts`); undefined: none is set. */
  transport: SendingDns | undefined;
  /** `DKIM_SELECTOR`, split. */
  dkimSelectors: string[];
  /** `BOUNCE_ADDRESS`, when set. */
  bounceAddress?: string;
}

/** DNS that cannot be asked (no answer, refused): a finding of its own, never "not published". */
class DnsUnavailable extends Error {}

/** Lookups that say "none" for a missing name or type, as DNS does (NXDOMAIN, NODATA). */
export function dnsLookups(servers?: string[]) {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (servers) resolver.setServers(servers);
  async function ask<T>(name: string, query: () => Promise<T>): Promise<T | null> {
    try {
      return await query();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTFOUND" || code === "ENODATA") return null;
      throw new DnsUnavailable(`DNS did not answer for ${name} (${code ?? String(error)})`);
    }
  }
  return {
    /** TXT records, each one string: DNS splits a record into strings of at most 255 characters. */
    txt: async (name: string) =>
      (await ask(name, () => resolver.resolveTxt(name)))?.map((parts) => parts.join("")) ?? [],
    mx: async (name: string) =>
      (await ask(name, () => resolver.resolveMx(name)))?.map((mx) => mx.exchange.toLowerCase()) ?? [],
    a: async (name: string) =>
      isIP(name) ? [name] : ((await ask(name, () => resolver.resolve4(name))) ?? []),
    /** The names an IP's PTR records give (reverse DNS). */
    reverse: async (ip: string) => (await ask(ip, () => resolver.reverse(ip)))?.map(lower) ?? [],
  };
}

export type DnsLookups = ReturnType<typeof dnsLookups>;

const lower = (name: string) => name.toLowerCase().replace(/\.$/, "");
/** The last two labels: the organizational domain, without a public-suffix list (good for `.com`, not `.co.uk`). */
export const baseDomain = (name: string) => lower(name).split(".").slice(-2).join(".");
const onDomain = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);

function ip4InCidr(ip: string, cidr: string): boolean {
  const [range, bitsText] = cidr.split("/");
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  if (isIP(ip) !== 4 || isIP(range) !== 4 || !(bits >= 0 && bits <= 32)) return false;
  const number = (address: string) => address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
  const block = 2 ** (32 - bits);
  return Math.floor(number(ip) / block) === Math.floor(number(range) / block);
}

async function checkSpf(dns: DnsLookups, setup: DomainSetup): Promise<Finding[]> {
  const { transport } = setup;
  const check = "SPF";
  if (!transport)
    return [
      {
        level: "fail",
        check,
        text: "no mail transport is set, so there is nothing to check SPF against",
        fix: `set ${TRANSPORTS.map((row) => row.variable)
          .join(", ")
          .replace(/, ([^,]*)$/, " or $1")} (docs/deploying.md)`,
      },
    ];
  // Where SPF is looked up: the envelope's (Return-Path) domain, which receivers check SPF on.
  const bounceDomain = setup.bounceAddress?.split("@")[1];
  const at = transport.envelopeDomain(setup.domain, bounceDomain ? lower(bounceDomain) : undefined);
  if (typeof at !== "string") return [{ level: "warn", check, text: at.unknown, fix: at.fix }];
  const { spf } = transport;
  const serverIps = "host" in spf ? await dns.a(spf.host) : [];
  const wanted =
    "host" in spf
      ? `the include your SMTP provider documents for ${spf.host} (an include: under ${baseDomain(spf.host)})${serverIps.length > 0 ? ` or ip4:${serverIps.join(" ip4:")}` : ""}`
      : `include:${spf.include}`;
  const records = (await dns.txt(at)).filter((record) => /^v=spf1(\s|$)/i.test(record));
  const findings: Finding[] = [];
  if (records.length === 0)
    findings.push({
      level: "fail",
      check,
      text: `no SPF record at ${at}`,
      fix: `add TXT ${at} "v=spf1 ${"host" in spf ? "include:..." : wanted} ~all"${"host" in spf ? ` with ${wanted}` : ""}`,
    });
  else if (records.length > 1)
    findings.push({
      level: "fail",
      check,
      text: `${records.length} SPF records at ${at}: receivers treat that as an error (RFC 7208, 4.5)`,
      fix: `merge them into one TXT record at ${at}`,
    });
  else {
    const terms = records[0].split(/\s+/).slice(1);
    const targets = terms.flatMap((term) => {
      const match = /^[+?~-]?(?:include:|redirect=|a:|mx:)(.+)$/i.exec(term);
      return match ? [lower(match[1])] : [];
    });
    const ip4s = terms.flatMap((term) => {
      const match = /^[+?~]?ip4:(.+)$/i.exec(term);
      return match ? [match[1]] : [];
    });
    const covered =
      "host" in spf
        ? targets.some((target) => onDomain(target, baseDomain(spf.host))) ||
          serverIps.some((ip) => ip4s.some((cidr) => ip4InCidr(ip, cidr))) ||
          (terms.some((term) => /^[+]?a$/i.test(term)) &&
            (await dns.a(at)).some((ip) => serverIps.includes(ip)))
        : targets.includes(spf.include);
    findings.push(
      covered
        ? { level: "ok", check, text: `${at}: "${records[0]}" covers ${transport.name}` }
        : {
            level: "fail",
            check,
            text: `${at}: "${records[0]}" does not name ${transport.name}'s servers, so receivers see a forged sender`,
            fix: `add ${wanted} to it, before the "all"`,
          },
    );
  }
  // A provider that takes the bounces of its envelope domain through its own MX (Resend and SES: Amazon SES's feedback MX).
  const { bounceMx } = transport;
  if (bounceMx && !(await dns.mx(at)).some((host) => host.endsWith(bounceMx.hostEnding)))
    findings.push({
      level: "fail",
      check,
      text: `no MX at ${at}: ${transport.name} needs it for the bounces of its envelope domain`,
      fix: bounceMx.fix(at),
    });
  return findings;
}

async function checkDkim(dns: DnsLookups, setup: DomainSetup): Promise<Finding[]> {
  const check = "DKIM";
  const { transport, domain } = setup;
  const selectors = setup.dkimSelectors.length > 0 ? setup.dkimSelectors : (transport?.dkim.selectors ?? []);
  if (selectors.length === 0)
    return [
      {
        level: "warn",
        check,
        text: `which DKIM selector ${transport?.name ?? "your provider"} signs with is not known, so it was not checked`,
        fix: transport
          ? transport.dkim.unknownFix(domain)
          : "set DKIM_SELECTOR to the selector your provider signs with (the s= of a received mail's DKIM-Signature header)",
      },
    ];
  const provider = transport?.name ?? "your provider";
  const findings: Finding[] = [];
  for (const selector of selectors) {
    const name = `${selector}._domainkey.${domain}`;
    const key = (await dns.txt(name)).find((record) => /(^|;)\s*p=/i.test(record));
    const publicKey = key ? /(?:^|;)\s*p=([^;]*)/i.exec(key)?.[1].trim() : undefined;
    if (!key)
      findings.push({
        level: "fail",
        check,
        text: `no DKIM key at ${name}`,
        fix:
          transport?.dkim.record?.(name, selector) ??
          `add the DKIM record ${provider} shows for ${domain} (TXT ${name} "v=DKIM1; k=rsa; p=...")`,
      });
    else if (!publicKey)
      findings.push({
        level: "fail",
        check,
        text: `the DKIM key at ${name} is empty (p=): revoked`,
        fix: `publish the current key from ${provider}`,
      });
    else findings.push({ level: "ok", check, text: `${name} holds a key (${publicKey.length} characters)` });
  }
  return findings;
}

async function checkDmarc(dns: DnsLookups, domain: string): Promise<Finding> {
  const check = "DMARC";
  const org = baseDomain(domain);
  const lookups = domain === org ? [domain] : [domain, org];
  for (const name of lookups) {
    const records = (await dns.txt(`_dmarc.${name}`)).filter((record) => /^v=DMARC1\s*(;|$)/i.test(record));
    if (records.length === 0) continue;
    if (records.length > 1)
      return {
        level: "fail",
        check,
        text: `${records.length} DMARC records at _dmarc.${name}: receivers then apply none`,
        fix: `keep one TXT record at _dmarc.${name}`,
      };
    const tags = new Map(
      records[0].split(";").map((tag) => {
        const [key, ...value] = tag.split("=");
        return [key.trim().toLowerCase(), value.join("=").trim().toLowerCase()] as const;
      }),
    );
    // A subdomain takes the organizational domain's sp=, else its p=.
    const policy = (name !== domain && tags.get("sp")) || tags.get("p");
    const where = `_dmarc.${name}`;
    if (policy === "quarantine" || policy === "reject")
      return { level: "ok", check, text: `${where}: p=${policy}` };
    if (policy === "none")
      return {
        level: "warn",
        check,
        text: `${where}: p=none, which Gmail and Yahoo accept, but it asks receivers to act on nothing`,
        fix: `once the aggregate reports (rua=) show your mail passing, set p=quarantine`,
      };
    return {
      level: "fail",
      check,
      text: `${where}: "${records[0]}" has no valid policy (p=)`,
      fix: `set p=none, then p=quarantine: TXT ${where} "v=DMARC1; p=none; rua=mailto:dmarc@${org}"`,
    };
  }
  return {
    level: "fail",
    check,
    text: `no DMARC record at _dmarc.${domain}${domain === org ? "" : ` or _dmarc.${org}`}: Gmail and Yahoo refuse bulk mail without one`,
    fix: `add TXT _dmarc.${org} "v=DMARC1; p=none; rua=mailto:dmarc@${org}", then move to p=quarantine`,
  };
}

function checkBounce(setup: DomainSetup): Finding[] {
  if (!setup.bounceAddress) return [];
  const check = "BOUNCE_ADDRESS";
  const bounceDomain = lower(setup.bounceAddress.split("@")[1] ?? "");
  return [
    onDomain(bounceDomain, setup.domain)
      ? { level: "ok", check, text: `${setup.bounceAddress} is on ${setup.domain}` }
      : {
          level: "warn",
          check,
          text: `${setup.bounceAddress} is not on ${setup.domain} or a subdomain of it, so SPF passes for another domain than the From's and DMARC rests on DKIM alone`,
          fix: `set BOUNCE_ADDRESS=bounces@mail.${setup.domain} (and that domain's SPF and MX)`,
        },
  ];
}

/**
 * An SMTP server's IPs need forward-confirmed reverse DNS (a PTR naming a host whose A record is
 * the IP): Gmail refuses mail from an IP without it. The server SMTP_URL names may hand the mail
 * to others (a provider's relay), so a gap is a warning; a host with no address blocks sending.
 */
async function checkReverseDns(dns: DnsLookups, setup: DomainSetup): Promise<Finding[]> {
  const host = setup.transport?.reverseDnsHost;
  if (!host) return [];
  const check = "reverse DNS";
  const ips = await dns.a(host);
  if (ips.length === 0)
    return [
      {
        level: "fail",
        check,
        text: `SMTP_URL's host ${host} has no IPv4 address in DNS`,
        fix: "set SMTP_URL to the server your provider names",
      },
    ];
  const findings: Finding[] = [];
  for (const ip of ips) {
    const names = await dns.reverse(ip);
    let confirmed: string | undefined;
    for (const name of names) if ((await dns.a(name)).includes(ip)) confirmed ??= name;
    findings.push(
      confirmed
        ? {
            level: "ok",
            check,
            text: `${ip} (${host}) has PTR ${confirmed}, which resolves back to it`,
          }
        : {
            level: "warn",
            check,
            text: `${ip} (${host}) has ${names.length === 0 ? "no PTR record" : `PTR ${names.join(", ")}, which does not resolve back to it`}: Gmail refuses mail from such an IP`,
            fix: `if this server delivers the mail itself, have whoever runs ${ip} set its PTR to ${host} (and ${host}'s A to ${ip})`,
          },
    );
  }
  return findings;
}

/** Every DNS finding for the sending domain; DNS that does not answer is a failure that says so. */
export async function checkDomain(dns: DnsLookups, setup: DomainSetup): Promise<Finding[]> {
  const guarded = async (check: string, run: () => Promise<Finding[]>): Promise<Finding[]> => {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof DnsUnavailable)) throw error;
      return [{ level: "fail", check, text: error.message, fix: "run it again where DNS answers" }];
    }
  };
  return [
    ...(await guarded("SPF", () => checkSpf(dns, setup))),
    ...(await guarded("DKIM", () => checkDkim(dns, setup))),
    ...(await guarded("DMARC", async () => [await checkDmarc(dns, setup.domain)])),
    ...(await guarded("reverse DNS", () => checkReverseDns(dns, setup))),
    ...checkBounce(setup),
  ];
}
