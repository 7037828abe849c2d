/**
 * A returned mail read as it is: the MIME of a bounce (RFC 3464 delivery status notification) or a
 * feedback-loop report (RFC 5965, ARF) split by hand, so nothing is folded away. mailparser folds
 * an attached `message/rfc822` into the report's body and drops `text/rfc822-headers`; here every
 * part of the report's multipart is kept, transfer encodings (base64, quoted-printable) undone,
 * and these are read:
 *
 * - the report part: `message/delivery-status` or `message/global-delivery-status` (RFC 6533,
 *   UTF-8), its per-message block and one block per recipient (a report whose only block names a
 *   recipient, as McAfee's, is read as that recipient's); or `message/feedback-report`, every
 *   field kept (an ARF report may repeat `Original-Rcpt-To`);
 * - the returned original: the first `message/rfc822`, `message/global`, `text/rfc822-headers` or
 *   `message/global-headers` part, its header fields (`List-Unsubscribe`, `Message-ID`, `To`, ...);
 * - the outer mail's own addressing (`Delivered-To`, `X-Original-To`, `To`), as the inbound route
 *   delivered it.
 *
 * `readReturnedMail(body)` returns all of that as a `ReturnedMail` and decides nothing: `dsn.ts`
 * turns it into events, and a check that the mail is ours reads the same fields. A body that is
 * not a mail at all (its first line is no header field) is a `NotAMail` error.
 */
import { Buffer } from "node:buffer";

/** Header fields, or a report's fields: lower-case name → every value, in order, unfolded. */
export type Fields = Map<string, string[]>;

/** A returned mail's report, as read (`readReturnedMail`). */
export interface ReturnedMail {
  /** `delivery-status` (RFC 3464), `feedback-report` (RFC 5965), or `none`: no report part. */
  type: "delivery-status" | "feedback-report" | "none";
  /** The outer mail's header fields: `Message-ID`, `Date`, `Delivered-To`, `X-Original-To`, `To`... */
  headers: Fields;
  messageId?: string;
  date?: Date;
  /** Where the report was addressed, from the outer mail's headers (each an address list). */
  addressedTo: { deliveredTo: string[]; xOriginalTo: string[]; to: string[] };
  /** The returned original's header fields, when the report carries it (or its headers). */
  original?: ReturnedOriginal;
  /** For `delivery-status`: the per-message fields and each recipient's. */
  deliveryStatus?: { message: Fields; recipients: DsnRecipient[] };
  /**
   * For `feedback-report`: its fields (`feedback-type`, `original-rcpt-to`, ...); `originalRcptTo`
   * the addresses it names (`Original-Rcpt-To`, or an opt-out's `Removal-Recipient`).
   */
  feedback?: { type: string; fields: Fields; originalRcptTo: string[] };
}

export interface ReturnedOriginal {
  /** `message/rfc822`, `message/global`, `text/rfc822-headers` or `message/global-headers`. */
  partType: string;
  headers: Fields;
  messageId?: string;
  /** The raw `List-Unsubscribe` value (`<https://...>, <mailto:...>`). */
  listUnsubscribe?: string;
  to: string[];
}

/** One recipient block of a delivery status notification. */
export interface DsnRecipient {
  /** `Original-Recipient` when given, else `Final-Recipient`, source route stripped. */
  recipient?: string;
  originalRecipient?: string;
  finalRecipient?: string;
  /** Lower case; `failed` when the block has no Action but a 4.x.x or 5.x.x Status. */
  action: string;
  status?: string;
  diagnosticCode?: string;
  fields: Fields;
}

export class NotAMail extends Error {}

interface Entity {
  headers: Fields;
  type: string;
  params: Map<string, string>;
  /** The body, transfer encoding undone, as latin1 (one character a byte). */
  body: string;
  parts: Entity[];
}

const ORIGINAL_TYPES = [
  "message/rfc822",
  "message/global",
  "text/rfc822-headers",
  "text/rfc822-header", // as some feedback loops spell it
  "message/global-headers",
];

export const first = (fields: Fields, name: string): string | undefined => fields.get(name)?.[0];

/** `Name: value` lines (continuations unfolded) into fields; lines that are no field are skipped. */
export function parseFields(text: string): Fields {
  const fields: Fields = new Map();
  for (const line of text
    .replace(/\r\n?/g, "\n")
    .replace(/\n[ \t]+/g, " ")
    .split("\n")) {
    const match = /^([!-9;-~]+)[ \t]*:(.*)$/.exec(line);
    if (!match) continue;
    const name = match[1].toLowerCase();
    fields.set(name, [...(fields.get(name) ?? []), match[2].trim()]);
  }
  return fields;
}

/** The blocks of a report part (separated by empty lines), each as fields. */
export function reportBlocks(text: string): Fields[] {
  return text
    .replace(/\r\n?/g, "\n")
    .split(/\n[ \t]*\n/)
    .map(parseFields)
    .filter((fields) => fields.size > 0);
}

/** Splits at the first empty line; a part with no empty line is all header (text/rfc822-headers). */
function splitHead(raw: string): [string, string] {
  const match = /\r?\n\r?\n/.exec(raw);
  return match ? [raw.slice(0, match.index), raw.slice(match.index + match[0].length)] : [raw, ""];
}

/** `multipart/report; report-type=delivery-status; boundary="x"` → type and parameters. */
function contentType(value: string | undefined): { type: string; params: Map<string, string> } {
  const [type = "text/plain", ...rest] = (value ?? "text/plain").split(";");
  const params = new Map<string, string>();
  for (const match of rest.join(";").matchAll(/([\w.*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))/g))
    params.set(match[1].toLowerCase(), (match[2] ?? match[3]).replace(/\\(.)/g, "$1"));
  return { type: type.trim().toLowerCase() || "text/plain", params };
}

function decodeTransfer(body: string, encoding: string | undefined): string {
  const name = (encoding ?? "").trim().toLowerCase();
  if (name === "base64")
    return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ""), "base64").toString("latin1");
  if (name === "quoted-printable")
    return body
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return body;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const delimiterLine = (boundary: string) => new RegExp(`^--${escaped(boundary)}(--)?[ \\t]*\\r?$`, "m");

/**
 * The delimiter line of a multipart body: its declared boundary, or, when the body never uses it
 * (a boundary lost to line folding, or rewritten by a relay), the first `--boundary` line the
 * body repeats.
 */
function delimiterOf(boundary: string | undefined, body: string): RegExp | undefined {
  if (boundary && delimiterLine(boundary).test(body)) return delimiterLine(boundary);
  for (const match of body.matchAll(/^--([^\s]{1,200}?)(--)?[ \t]*\r?$/gm)) {
    const candidate = delimiterLine(match[1]);
    if ((body.match(new RegExp(candidate.source, "gm")) ?? []).length >= 2) return candidate;
  }
  return undefined;
}

function parseEntity(raw: string, depth = 0): Entity {
  const [head, rawBody] = splitHead(raw);
  const headers = parseFields(head);
  const { type, params } = contentType(first(headers, "content-type"));
  const boundary = params.get("boundary");
  if (type.startsWith("multipart/") && depth < 8) {
    const parts: Entity[] = [];
    const delimiter = delimiterOf(boundary, rawBody);
    let rest = rawBody;
    let match = delimiter?.exec(rest) ?? null;
    // The preamble before the first delimiter is not a part.
    while (match) {
      rest = rest.slice(match.index + match[0].length).replace(/^\n/, "");
      if (match[1]) break;
      const next = (delimiter as RegExp).exec(rest);
      const partText = next ? rest.slice(0, next.index).replace(/\r?\n$/, "") : rest;
      parts.push(parseEntity(partText, depth + 1));
      if (!next) break;
      rest = rest.slice(next.index);
      match = (delimiter as RegExp).exec(rest);
    }
    return { headers, type, params, body: "", parts };
  }
  return {
    headers,
    type,
    params,
    body: decodeTransfer(rawBody, first(headers, "content-transfer-encoding")),
    parts: [],
  };
}

/** Every leaf of the outer structure (an attached message's own parts are not descended into). */
function leaves(entity: Entity): Entity[] {
  return entity.parts.length > 0 ? entity.parts.flatMap(leaves) : [entity];
}

/** RFC 2047's encoded words (`=?utf-8?B?8J+QiA==?=`), which some MTAs write even in an address. */
export function decodeWords(value: string): string {
  return value.replace(
    /=\?([\w-]+)(?:\*[\w-]+)?\?([BbQq])\?([^?\s]*)\?=/g,
    (word, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === "B"
          ? Buffer.from(text, "base64")
          : Buffer.from(
              text
                .replace(/_/g, " ")
                .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
              "latin1",
            );
      const name = charset.toLowerCase();
      if (name === "utf-8" || name === "utf8" || name === "us-ascii") return bytes.toString("utf8");
      if (name === "iso-8859-1" || name === "latin1") return bytes.toString("latin1");
      return word;
    },
  );
}

/** `rfc822; @relay.example:Ann@Example.com` or `<ann@example.com>` → `Ann@Example.com`. */
export function reportAddress(value: string | undefined): string | undefined {
  const bare = value
    ?.replace(/^[\w-]+\s*;/, "")
    .replace(/\([^)]*\)/g, "")
    .trim()
    .replace(/^<(.*)>$/, "$1")
    .replace(/^(?:@[^\s:,@]+,?)+:/, "")
    // RFC 6533's utf-8 address type escapes as \x{HH}.
    .replace(/\\x\{([0-9A-Fa-f]+)\}/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .trim();
  const decoded = bare && decodeWords(bare);
  return decoded && /^[^\s@<>"]+@[^\s@<>"]+$/.test(decoded) ? decoded : undefined;
}

/** The addresses of an address-list header (`Ann <ann@example.com>, bob@example.com`). */
export function addressList(values: string[] | undefined): string[] {
  const found: string[] = [];
  for (const value of values ?? []) {
    const unquoted = value.replace(/"(?:[^"\\]|\\.)*"/g, "").replace(/\([^)]*\)/g, "");
    const bracketed = [...unquoted.matchAll(/<([^<>\s]+@[^<>\s]+)>/g)].map((match) => match[1]);
    if (bracketed.length > 0) found.push(...bracketed);
    else
      found.push(
        ...unquoted
          .split(/[,;]/)
          .map((item) => item.trim())
          .filter((item) => /^[^\s@]+@[^\s@]+$/.test(item)),
      );
  }
  return found;
}

const utf8 = (latin1: string) => Buffer.from(latin1, "latin1").toString("utf8");

function readOriginal(part: Entity): ReturnedOriginal {
  const text = part.type.startsWith("message/global") ? utf8(part.body) : part.body;
  const headers = parseFields(splitHead(text)[0]);
  return {
    partType: part.type,
    headers,
    messageId: first(headers, "message-id"),
    listUnsubscribe: first(headers, "list-unsubscribe"),
    to: addressList(headers.get("to")),
  };
}

function readRecipient(fields: Fields): DsnRecipient {
  const originalRecipient = reportAddress(first(fields, "original-recipient"));
  const finalRecipient = reportAddress(first(fields, "final-recipient"));
  const status = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(first(fields, "status") ?? "")?.[1];
  const action = (first(fields, "action") ?? (status && !status.startsWith("2") ? "failed" : ""))
    .split(/[\s(]/)[0]
    .toLowerCase();
  return {
    recipient: originalRecipient ?? finalRecipient,
    originalRecipient,
    finalRecipient,
    action,
    status,
    diagnosticCode: first(fields, "diagnostic-code"),
    fields,
  };
}

const RECIPIENT_FIELDS = ["final-recipient", "original-recipient", "action", "status"];

/** Reads a raw mail (as the inbound route posted it) into its report, deciding nothing. */
export function readReturnedMail(body: Uint8Array): ReturnedMail {
  const raw = Buffer.from(body)
    .toString("latin1")
    .replace(/^From [^\n]*\n/, "");
  if (!/^[A-Za-z][A-Za-z0-9-]*[ \t]*:/.test(raw))
    throw new NotAMail("The body is not a mail message (RFC 5322): it does not start with a header field.");
  const root = parseEntity(raw);
  const date = first(root.headers, "date");
  const parsedDate = date ? new Date(date.replace(/\s*\([^)]*\)\s*$/, "")) : undefined;
  const outer: ReturnedMail = {
    type: "none",
    headers: root.headers,
    messageId: first(root.headers, "message-id"),
    date: parsedDate && !Number.isNaN(parsedDate.getTime()) ? parsedDate : undefined,
    addressedTo: {
      deliveredTo: addressList(root.headers.get("delivered-to")),
      xOriginalTo: addressList(root.headers.get("x-original-to")),
      to: addressList(root.headers.get("to")),
    },
  };
  const report = readReport(root, outer);
  if (report.type !== "none") return report;
  // A report forwarded as an attachment (a gateway's notice wrapping the bounce it got).
  const forwarded = leaves(root)
    .filter((part) => part.type === "message/rfc822")
    .map((part) => parseEntity(part.body, 1))
    .find((inner) => inner.type === "multipart/report");
  return forwarded ? readReport(forwarded, outer) : report;
}

function readReport(entity: Entity, mail: ReturnedMail): ReturnedMail {
  const parts = leaves(entity);
  const originalPart = parts.find((part) => ORIGINAL_TYPES.includes(part.type));
  const base = { ...mail, original: originalPart ? readOriginal(originalPart) : undefined };
  const status = parts.find(
    (part) => part.type === "message/delivery-status" || part.type === "message/global-delivery-status",
  );
  if (status) {
    const blocks = reportBlocks(status.type.includes("global") ? utf8(status.body) : status.body);
    const names = (fields: Fields) => RECIPIENT_FIELDS.some((name) => fields.has(name));
    // The first block is the message's; a report with one block that names a recipient has none.
    const [message, ...recipients] =
      blocks.length > 0 && !names(blocks[0]) ? blocks : [new Map() as Fields, ...blocks];
    return {
      ...base,
      type: "delivery-status",
      deliveryStatus: { message, recipients: recipients.filter(names).map(readRecipient) },
    };
  }
  const feedback = parts.find((part) => part.type === "message/feedback-report");
  if (feedback) {
    const fields = parseFields(feedback.body);
    // Original-Rcpt-To (RFC 5965); Removal-Recipient in the opt-out reports that predate it.
    const named = [...(fields.get("original-rcpt-to") ?? []), ...(fields.get("removal-recipient") ?? [])];
    return {
      ...base,
      type: "feedback-report",
      feedback: {
        type: (first(fields, "feedback-type") ?? "").toLowerCase(),
        fields,
        originalRcptTo: named
          .map(reportAddress)
          .filter((address): address is string => address !== undefined),
      },
    };
  }
  return base;
}
