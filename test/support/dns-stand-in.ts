/**
 * A stand-in for DNS on the internet: a UDP server on 127.0.0.1 answering A, TXT, CNAME, MX and PTR
 * from a table, as a recursive resolver would (packets by `dns-packet`). It keeps DNS's rules: a
 * TXT value longer than 255 characters goes out as several strings of at most 255 (the reader
 * joins them), a CNAME is followed and its target's records answered with it, a name with no
 * records at all (and no records below it) is NXDOMAIN, a name with other types only is an empty
 * NOERROR answer, and an answer too large for the client's UDP size is sent truncated (TC).
 */
import { createSocket } from "node:dgram";
import * as dnsPacket from "dns-packet";
import { freePort } from "./free-port.ts";

export interface ZoneEntry {
  A?: string[];
  TXT?: string[];
  CNAME?: string;
  MX?: { exchange: string; priority: number }[];
  /** At `<reversed IPv4>.in-addr.arpa`. */
  PTR?: string[];
}

/** Names (without the trailing dot, any case) and their records. */
export type Zone = Record<string, ZoneEntry>;

export interface DnsStandIn {
  /** For `Resolver.setServers` or DOCTOR_DNS_SERVERS: `127.0.0.1:PORT`. */
  server: string;
  /** Every question asked, as `TYPE name`. */
  questions: string[];
  stop(): Promise<void>;
}

const TTL = 300;

/** DNS character-strings hold at most 255 bytes: a longer TXT value is several strings. */
export function txtStrings(value: string): Buffer[] {
  const bytes = Buffer.from(value, "utf8");
  const parts: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += 255) parts.push(bytes.subarray(start, start + 255));
  return parts.length > 0 ? parts : [Buffer.alloc(0)];
}

export async function startDnsStandIn(zone: Zone): Promise<DnsStandIn> {
  const table = new Map(Object.entries(zone).map(([name, entry]) => [name.toLowerCase(), entry]));
  const exists = (name: string) =>
    table.has(name) || [...table.keys()].some((known) => known.endsWith(`.${name}`));
  const questions: string[] = [];

  function answer(query: dnsPacket.Packet): Buffer {
    const [question] = query.questions ?? [];
    const answers: dnsPacket.Answer[] = [];
    let rcode: "NOERROR" | "NXDOMAIN" | "NOTIMP" = "NOERROR";
    if (question) {
      questions.push(`${question.type} ${question.name}`);
      let name = question.name.toLowerCase().replace(/\.$/, "");
      // Follow CNAMEs (at most 8), as a recursive resolver does for any other type.
      for (let hops = 0; question.type !== "CNAME" && table.get(name)?.CNAME && hops < 8; hops++) {
        const target = (table.get(name)?.CNAME ?? "").toLowerCase();
        answers.push({ type: "CNAME", name, ttl: TTL, class: "IN", data: target });
        name = target;
      }
      const entry = table.get(name);
      if (!exists(name)) rcode = "NXDOMAIN";
      else if (question.type === "A")
        for (const ip of entry?.A ?? []) answers.push({ type: "A", name, ttl: TTL, class: "IN", data: ip });
      else if (question.type === "TXT")
        for (const value of entry?.TXT ?? [])
          answers.push({ type: "TXT", name, ttl: TTL, class: "IN", data: txtStrings(value) });
      else if (question.type === "MX")
        for (const mx of entry?.MX ?? [])
          answers.push({
            type: "MX",
            name,
            ttl: TTL,
            class: "IN",
            data: { exchange: mx.exchange, preference: mx.priority },
          });
      else if (question.type === "PTR")
        for (const target of entry?.PTR ?? [])
          answers.push({ type: "PTR", name, ttl: TTL, class: "IN", data: target });
      else if (question.type === "CNAME" && entry?.CNAME)
        answers.push({ type: "CNAME", name, ttl: TTL, class: "IN", data: entry.CNAME });
      else if (!["A", "TXT", "MX", "CNAME", "PTR"].includes(question.type)) rcode = "NOTIMP";
    }
    const reply = (withAnswers: dnsPacket.Answer[], truncated: boolean) =>
      dnsPacket.encode({
        id: query.id,
        type: "response",
        flags:
          dnsPacket.RECURSION_DESIRED |
          dnsPacket.RECURSION_AVAILABLE |
          (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) |
          { NOERROR: 0, NXDOMAIN: 3, NOTIMP: 4 }[rcode],
        questions: query.questions,
        answers: withAnswers,
      });
    // Without EDNS a UDP answer holds 512 bytes; a larger one is sent empty and marked truncated.
    const opt = query.additionals?.find((record) => record.type === "OPT") as
      { udpPayloadSize?: number } | undefined;
    const full = reply(answers, false);
    return full.length <= Math.max(512, opt?.udpPayloadSize ?? 512) ? full : reply([], true);
  }

  const socket = createSocket("udp4");
  socket.on("message", (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return; // not DNS: no answer, as a server would
    }
    socket.send(answer(query), remote.port, remote.address);
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, "127.0.0.1", () => resolve());
  });
  return {
    server: `127.0.0.1:${port}`,
    questions,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
