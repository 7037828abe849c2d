/**
 * A returned mail read as it is: the MIME of a bounce (RFC 3464 delivery status notification) or a
 * feedback-loop report (RFC 5965, ARF) split by hand, so nothing is folded away. mailparser folds
 * an attached or inline `message/rfc822` into the report's body and drops `text/rfc822-headers`;
 * here every part of the report's multipart is kept, transfer encodings (base64,
 * quoted-printable) undone, and these are read:
 *
 * - the report part: `message/delivery-status` or `message/global-delivery-status` (RFC 6533,
 *   UTF-8), its per-message block and one block per recipient (a report whose only block names a
 *   recipient, as McAfee's, is read as that recipient's); or `message/feedback-report`, every
 *   field kept (an ARF report may repeat `Original-Rcpt-To`);
 * - the returned original, inline or attached: the first `message/rfc822`, `message/global`,
 *   `text/rfc822-headers` or `message/global-headers` part, its header fields (`List-Unsubscribe`,
 *   `Return-Path`, `Message-ID`, `To`, ...);
 * - the report's first human-readable text (a `text/plain` part, in its charset), for a report
 *   whose recipient block says nothing of what happened (Gmail's "Address not found");
 * - the outer mail's own addressing (`Delivered-To`, `X-Original-To`, `To`), as the inbound route
 *   delivered it.
 *
 * Anyone can mail the bounce address, and this runs before any token is checked, so the reading
 * is linear in the mail and capped (READING_LIMITS): header lines are scanned once with `indexOf`
 * and each field's value is cut at a few thousand characters; a name seen again is appended to,
 * never copied; a multipart's delimiter lines are found in one pass, trying a few `--boundary`
 * candidates at most when the declared boundary is not used; only so many parts, levels and report
 * blocks are read. What is past a cap is skipped, not refused: the rest of the mail is read as if
 * it were not there. Addresses, comments and quoted strings are scanned by hand, not by a pattern
 * that could backtrack over a long run.
 *
 * `readReturnedMail(body)` returns all of that as a `ReturnedMail` and decides nothing: `dsn.ts`
 * turns it into events, and `report-trust.ts` reads the same fields for its proof. A body that is
 * not a mail at all (its first line is no header field) is a `NotAMail` error.
 */
import { Buffer } from "node:buffer";

/** Header fields, or a report's fields: lower-case name → every value, in order, unfolded. */
export type Fields = Map<string, string[]>;

/** How much of a returned mail is read; whatever is past a cap is skipped. */
export const READING_LIMITS = {
  /** Header fields kept per header block or report block (a real mail has under 100). */
  fieldsPerBlock: 200,
  /** Characters kept of one unfolded field value (RFC 5322 lines are at most 998). */
  fieldChars: 4_000,
  /** The longest field name read (the longest registered is under 40). */
  nameChars: 100,
  /** MIME entities read in one mail, however they nest. */
  parts: 64,
  /** How deep multiparts, and reports forwarded as an attached message, are read. */
  depth: 5,
  /** Distinct `--boundary` lines tried when a multipart's declared boundary is never used. */
  boundaryCandidates: 4,
  /** Field blocks read of one report part: its per-message block and one per recipient. */
  reportBlocks: 64,
  /** Addresses read of one address list. */
  addresses: 32,
  /** Characters kept of the human-readable text. */
  textChars: 4_000,
} as const;

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
  /** The report's first `text/plain` part, decoded in its charset, at most READING_LIMITS.textChars. */
  text?: string;
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
  /** The addresses of its `Return-Path` (our envelope sender, where a provider added it). */
  returnPath: string[];
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
  /** The enhanced code of its `Status` (`5.1.1`). */
  status?: string;
  /** What follows the code in `Status` (`5.4.4 (Illegal host/domain name found)`), if anything. */
  statusText?: string;
  /** The `Diagnostic-Code` field, in the report's charset. */
  diagnosticCode?: string;
  fields: Fields;
}

export class NotAMail extends Error {}

/** A MIME entity of the mail: its header, and where its body lies in the mail's text. */
interface Entity {
  headers: Fields;
  type: string;
  params: Map<string, string>;
  /** The text the body lies in (the mail, one character a byte; or a decoded attached message). */
  source: string;
  start: number;
  end: number;
  parts: Entity[];
  depth: number;
}

/** What one reading has spent of its caps. */
interface Budget {
  parts: number;
}

const ORIGINAL_TYPES = [
  "message/rfc822",
  "message/global",
  "text/rfc822-headers",
  "text/rfc822-header", // as some feedback loops spell it
  "message/global-headers",
];

export const first = (fields: Fields, name: string): string | undefined => fields.get(name)?.[0];

const SPACE = 32;
const TAB = 9;
const CR = 13;
const isBlank = (code: number) => code === SPACE || code === TAB || code === CR;
/** `[!-9;-~]`: the characters of a field name (RFC 5322 ftext). */
const FIELD_NAME = /^[!-9;-~]+$/;

/**
 * Reads header fields from `text` at `start`, up to the first empty line (or, with
 * `blankWithSpaces`, a line of only spaces, as report blocks are separated) or `end`. Returns the
 * fields and where the body after the empty line starts. Lines that are no field are skipped.
 */
function readFields(
  text: string,
  start: number,
  end: number,
  blankWithSpaces = false,
): { fields: Fields; next: number } {
  const fields: Fields = new Map();
  let count = 0;
  let name = "";
  let value = "";
  let open = false;
  const close = () => {
    if (!open) return;
    const values = fields.get(name);
    if (values) values.push(value.trim());
    else fields.set(name, [value.trim()]);
    open = false;
  };
  let position = start;
  while (position < end) {
    const newline = text.indexOf("\n", position);
    const lineEnd = newline < 0 || newline >= end ? end : newline;
    const next = lineEnd + 1;
    let contentEnd = lineEnd;
    if (contentEnd > position && text.charCodeAt(contentEnd - 1) === CR) contentEnd -= 1;
    if (contentEnd === position) {
      close();
      return { fields, next: Math.min(next, end) };
    }
    const firstCode = text.charCodeAt(position);
    if (firstCode === SPACE || firstCode === TAB) {
      if (blankWithSpaces) {
        let only = true;
        for (let index = position; index < contentEnd && only; index++)
          only = isBlank(text.charCodeAt(index));
        if (only) {
          close();
          return { fields, next: Math.min(next, end) };
        }
      }
      // A folded line continues the field before it.
      if (open && value.length < READING_LIMITS.fieldChars)
        value += ` ${text.slice(position, Math.min(contentEnd, position + READING_LIMITS.fieldChars - value.length)).trim()}`;
      position = next;
      continue;
    }
    close();
    // The colon within the first nameChars of the line: a search past them would cross the rest
    // of the mail for every line that has none.
    const colon =
      text.slice(position, Math.min(contentEnd, position + READING_LIMITS.nameChars + 1)).indexOf(":") +
      position;
    if (colon > position) {
      const fieldName = text.slice(position, colon).replace(/[ \t]+$/, "");
      if (FIELD_NAME.test(fieldName) && count < READING_LIMITS.fieldsPerBlock) {
        name = fieldName.toLowerCase();
        value = text.slice(colon + 1, Math.min(contentEnd, colon + 1 + READING_LIMITS.fieldChars));
        open = true;
        count += 1;
      }
    }
    position = next;
  }
  close();
  return { fields, next: end };
}

/** `Name: value` lines (continuations unfolded) into fields; lines that are no field are skipped. */
export function parseFields(text: string): Fields {
  return readFields(text, 0, text.length).fields;
}

/** The blocks of a report part (separated by empty lines), each as fields. */
export function reportBlocks(text: string): Fields[] {
  const blocks: Fields[] = [];
  let position = 0;
  while (position < text.length && blocks.length < READING_LIMITS.reportBlocks) {
    const { fields, next } = readFields(text, position, text.length, true);
    if (fields.size > 0) blocks.push(fields);
    if (next <= position) break;
    position = next;
  }
  return blocks;
}

/**
 * `multipart/report; report-type=delivery-status; boundary="x"` → type and parameters, scanned once
 * (quoted values with their backslash escapes).
 */
function contentType(value: string | undefined): { type: string; params: Map<string, string> } {
  const text = value ?? "text/plain";
  const semicolon = text.indexOf(";");
  const type = (semicolon < 0 ? text : text.slice(0, semicolon)).trim().toLowerCase() || "text/plain";
  const params = new Map<string, string>();
  let index = semicolon < 0 ? text.length : semicolon + 1;
  // A few rounds at most, each a scan of the (capped) value: a type has a handful of parameters.
  for (let round = 0; index < text.length && round < 16; round++) {
    const equals = text.indexOf("=", index);
    const nextSemicolon = text.indexOf(";", index);
    if (equals < 0) break;
    if (nextSemicolon >= 0 && nextSemicolon < equals) {
      index = nextSemicolon + 1;
      continue;
    }
    const name = text.slice(index, equals).trim().toLowerCase();
    let cursor = equals + 1;
    while (cursor < text.length && isBlank(text.charCodeAt(cursor))) cursor += 1;
    let parameter = "";
    if (text[cursor] === '"') {
      cursor += 1;
      while (cursor < text.length && text[cursor] !== '"') {
        if (text[cursor] === "\\" && cursor + 1 < text.length) cursor += 1;
        parameter += text[cursor];
        cursor += 1;
      }
      cursor += 1;
    } else {
      const from = cursor;
      while (cursor < text.length && text[cursor] !== ";" && !isBlank(text.charCodeAt(cursor))) cursor += 1;
      parameter = text.slice(from, cursor);
    }
    if (/^[\w.*-]+$/.test(name) && !params.has(name)) params.set(name, parameter);
    const after = text.indexOf(";", cursor);
    if (after < 0) break;
    index = after + 1;
  }
  return { type, params };
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

/** A delimiter line of a multipart body: where it starts, where the part after it starts, whether it closes. */
interface Delimiter {
  at: number;
  next: number;
  closing: boolean;
}

/**
 * The delimiter lines of a multipart body, found in one pass: those of its declared boundary, or,
 * when the body never uses it (a boundary lost to line folding, or rewritten by a relay), those
 * of the first `--boundary` line the body repeats, of the first few it has.
 */
function delimiters(text: string, start: number, end: number, boundary: string | undefined): Delimiter[] {
  const declared: Delimiter[] = [];
  const candidates = new Map<string, Delimiter[]>();
  const wanted = boundary ? `--${boundary}` : undefined;
  let position = start;
  while (position < end) {
    const newline = text.indexOf("\n", position);
    const lineEnd = newline < 0 || newline >= end ? end : newline;
    const next = Math.min(lineEnd + 1, end);
    if (text.charCodeAt(position) === 45 && text.charCodeAt(position + 1) === 45) {
      let contentEnd = lineEnd;
      while (contentEnd > position && isBlank(text.charCodeAt(contentEnd - 1))) contentEnd -= 1;
      const line = text.slice(position, Math.min(contentEnd, position + 300));
      if (wanted && (line === wanted || line === `${wanted}--`))
        declared.push({ at: position, next, closing: line !== wanted });
      else if (declared.length === 0 && line.length > 2 && line.length < 300 && !/\s/.test(line)) {
        const closing = line.length > 4 && line.endsWith("--");
        const name = closing ? line.slice(2, -2) : line.slice(2);
        const seen = candidates.get(name);
        if (seen) seen.push({ at: position, next, closing });
        else if (candidates.size < READING_LIMITS.boundaryCandidates)
          candidates.set(name, [{ at: position, next, closing }]);
      }
    }
    position = next;
  }
  if (declared.length > 0) return declared;
  for (const found of candidates.values()) if (found.length >= 2) return found;
  return [];
}

/** The entity at [start, end) of `source`, its parts read within the reading's budget. */
function parseEntity(source: string, start: number, end: number, depth: number, budget: Budget): Entity {
  budget.parts += 1;
  const { fields, next } = readFields(source, start, end);
  const { type, params } = contentType(first(fields, "content-type"));
  const entity: Entity = { headers: fields, type, params, source, start: next, end, parts: [], depth };
  if (!type.startsWith("multipart/") || depth >= READING_LIMITS.depth) return entity;
  const lines = delimiters(source, next, end, params.get("boundary"));
  // The preamble before the first delimiter is not a part, nor is anything after the closing one.
  for (let index = 0; index < lines.length && !lines[index].closing; index++) {
    if (budget.parts >= READING_LIMITS.parts) break;
    const partEnd = index + 1 < lines.length ? lines[index + 1].at : end;
    // The line break before a delimiter belongs to the delimiter.
    let trimmedEnd = partEnd;
    if (trimmedEnd > lines[index].next && source.charCodeAt(trimmedEnd - 1) === 10) trimmedEnd -= 1;
    if (trimmedEnd > lines[index].next && source.charCodeAt(trimmedEnd - 1) === CR) trimmedEnd -= 1;
    entity.parts.push(parseEntity(source, lines[index].next, trimmedEnd, depth + 1, budget));
  }
  return entity;
}

/** The body of an entity, its transfer encoding undone, one character a byte. */
const bodyOf = (entity: Entity): string =>
  decodeTransfer(
    entity.source.slice(entity.start, entity.end),
    first(entity.headers, "content-transfer-encoding"),
  );

/** Every leaf of the outer structure (an attached message's own parts are not descended into). */
function leaves(entity: Entity): Entity[] {
  return entity.parts.length > 0 ? entity.parts.flatMap(leaves) : [entity];
}

/**
 * Bytes (one character a byte) as text in `charset`; with none, ISO-2022-JP when its escapes are
 * there (Japanese MTAs write it even in a report's fields), else UTF-8 when the bytes are UTF-8,
 * else Latin-1. An unknown charset is read as if none were named.
 */
export function decodeBytes(bytes: string, charset?: string): string {
  const label = charset?.trim().toLowerCase();
  const decode = (name: string, fatal = false) =>
    new TextDecoder(name, { fatal }).decode(Buffer.from(bytes, "latin1"));
  if (label && label !== "us-ascii" && label !== "ascii")
    try {
      return decode(label);
    } catch {
      // An unknown label: read as if none were named.
    }
  // eslint-disable-next-line no-control-regex
  if (/\x1b[$(][@BJD]/.test(bytes))
    try {
      return decode("iso-2022-jp");
    } catch {
      // A runtime without the legacy decoders reads it as Latin-1 below.
    }
  if (!/[\x80-\xff]/.test(bytes)) return bytes;
  try {
    return decode("utf-8", true);
  } catch {
    return bytes;
  }
}

/** RFC 2047's encoded words (`=?utf-8?B?8J+QiA==?=`), which some MTAs write even in an address. */
export function decodeWords(value: string): string {
  return value.replace(
    /=\?([\w-]{1,40})(?:\*[\w-]{1,40})?\?([BbQq])\?([^?\s]*)\?=/g,
    (word, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === "B"
          ? Buffer.from(text, "base64").toString("latin1")
          : text
              .replace(/_/g, " ")
              .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      try {
        return new TextDecoder(charset.toLowerCase() === "latin1" ? "iso-8859-1" : charset).decode(
          Buffer.from(bytes, "latin1"),
        );
      } catch {
        return word;
      }
    },
  );
}

/** The text without its `(comments)` (nested, RFC 5322) and, with `quotes`, its `"quoted strings"`. */
function withoutComments(text: string, quotes = false): string {
  let out = "";
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === "\\") index += 1;
      else if (char === '"') quoted = false;
      continue;
    }
    if (char === "\\" && depth > 0) index += 1;
    else if (char === "(") depth += 1;
    else if (char === ")" && depth > 0) depth -= 1;
    else if (depth === 0) {
      if (quotes && char === '"') quoted = true;
      else out += char;
    }
  }
  return out;
}

/** RFC 6533's utf-8 address type escapes a character as `\x{HH}`; a code point past Unicode is no address. */
function unescapeUtf8Address(text: string): string | undefined {
  let invalid = false;
  const unescaped = text.replace(/\\x\{([0-9A-Fa-f]{1,8})\}/g, (_, hex: string) => {
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      invalid = true;
      return "";
    }
    return String.fromCodePoint(code);
  });
  return invalid ? undefined : unescaped;
}

/** `rfc822; @relay.example:Ann@Example.com` or `<ann@example.com>` → `Ann@Example.com`. */
export function reportAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const typed = /^[\w-]{1,40}\s*;/.exec(value);
  let bare = withoutComments(typed ? value.slice(typed[0].length) : value).trim();
  if (bare.startsWith("<") && bare.endsWith(">")) bare = bare.slice(1, -1);
  bare = bare.replace(/^(?:@[^\s:,@]+,?)+:/, "").trim();
  const unescaped = unescapeUtf8Address(bare);
  const decoded = unescaped && decodeWords(unescaped).trim();
  return decoded && /^[^\s@<>"]+@[^\s@<>"]+$/.test(decoded) ? decoded : undefined;
}

/** The addresses of an address-list header (`Ann <ann@example.com>, bob@example.com`). */
export function addressList(values: string[] | undefined): string[] {
  const found: string[] = [];
  for (const value of values ?? []) {
    const unquoted = withoutComments(value, true);
    const bracketed: string[] = [];
    for (let open = unquoted.indexOf("<"); open >= 0 && bracketed.length < READING_LIMITS.addresses;) {
      const close = unquoted.indexOf(">", open + 1);
      if (close < 0) break;
      const inner = unquoted.slice(open + 1, close);
      if (/^[^<>\s]+@[^<>\s]+$/.test(inner)) bracketed.push(inner);
      open = unquoted.indexOf("<", close + 1);
    }
    if (bracketed.length > 0) found.push(...bracketed);
    else
      found.push(
        ...unquoted
          .split(/[,;]/, READING_LIMITS.addresses)
          .map((item) => item.trim())
          .filter((item) => /^[^\s@]+@[^\s@]+$/.test(item)),
      );
    if (found.length >= READING_LIMITS.addresses) break;
  }
  return found.slice(0, READING_LIMITS.addresses);
}

function readOriginal(part: Entity): ReturnedOriginal {
  const bytes = bodyOf(part);
  const text = part.type.startsWith("message/global") ? decodeBytes(bytes, "utf-8") : bytes;
  const { fields: headers } = readFields(text, 0, text.length);
  return {
    partType: part.type,
    headers,
    messageId: first(headers, "message-id"),
    listUnsubscribe: first(headers, "list-unsubscribe"),
    returnPath: addressList(headers.get("return-path")),
    to: addressList(headers.get("to")),
  };
}

function readRecipient(fields: Fields, charset: string | undefined): DsnRecipient {
  const originalRecipient = reportAddress(first(fields, "original-recipient"));
  const finalRecipient = reportAddress(first(fields, "final-recipient"));
  const statusField = first(fields, "status") ?? "";
  const statusMatch = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(statusField);
  const status = statusMatch?.[1];
  const statusText = statusMatch ? statusField.slice(statusMatch[0].length).trim() : "";
  const action = (first(fields, "action") ?? (status && !status.startsWith("2") ? "failed" : ""))
    .split(/[\s(]/)[0]
    .toLowerCase();
  const diagnostic = first(fields, "diagnostic-code");
  return {
    recipient: originalRecipient ?? finalRecipient,
    originalRecipient,
    finalRecipient,
    action,
    status,
    ...(statusText ? { statusText: decodeWords(decodeBytes(statusText, charset)) } : {}),
    diagnosticCode: diagnostic === undefined ? undefined : decodeWords(decodeBytes(diagnostic, charset)),
    fields,
  };
}

const RECIPIENT_FIELDS = ["final-recipient", "original-recipient", "action", "status"];

/** A date field as a Date, its trailing `(comment)` dropped; undefined when it is none. */
function dateOf(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  let text = value.slice(0, 200).trim();
  const comment = text.lastIndexOf("(");
  if (comment > 0 && text.endsWith(")")) text = text.slice(0, comment).trim();
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Reads a raw mail (as the inbound route posted it) into its report, deciding nothing. */
export function readReturnedMail(body: Uint8Array): ReturnedMail {
  let raw = Buffer.from(body).toString("latin1");
  // An mbox "From " line before the header, as some inbound routes keep it.
  if (raw.startsWith("From ")) raw = raw.slice(raw.indexOf("\n") + 1 || raw.length);
  if (!/^[A-Za-z][A-Za-z0-9-]{0,99}[ \t]*:/.test(raw))
    throw new NotAMail("The body is not a mail message (RFC 5322): it does not start with a header field.");
  const budget: Budget = { parts: 0 };
  const root = parseEntity(raw, 0, raw.length, 0, budget);
  const outer: ReturnedMail = {
    type: "none",
    headers: root.headers,
    messageId: first(root.headers, "message-id"),
    date: dateOf(first(root.headers, "date")),
    addressedTo: {
      deliveredTo: addressList(root.headers.get("delivered-to")),
      xOriginalTo: addressList(root.headers.get("x-original-to")),
      to: addressList(root.headers.get("to")),
    },
  };
  const report = readReport(root, outer);
  if (report.type !== "none") return report;
  // A report forwarded as an attachment (a gateway's notice wrapping the bounce it got).
  for (const part of leaves(root)) {
    if (part.type !== "message/rfc822" || part.depth + 1 >= READING_LIMITS.depth) continue;
    if (budget.parts >= READING_LIMITS.parts) break;
    const inner = bodyOf(part);
    const entity = parseEntity(inner, 0, inner.length, part.depth + 1, budget);
    if (entity.type === "multipart/report") return readReport(entity, outer);
  }
  return report;
}

function readReport(entity: Entity, mail: ReturnedMail): ReturnedMail {
  const parts = leaves(entity);
  const originalPart = parts.find((part) => ORIGINAL_TYPES.includes(part.type));
  const textPart = parts.find((part) => part.type === "text/plain");
  const base: ReturnedMail = {
    ...mail,
    original: originalPart ? readOriginal(originalPart) : undefined,
    ...(textPart
      ? {
          text: decodeBytes(
            bodyOf(textPart).slice(0, READING_LIMITS.textChars * 4),
            textPart.params.get("charset"),
          ).slice(0, READING_LIMITS.textChars),
        }
      : {}),
  };
  const status = parts.find(
    (part) => part.type === "message/delivery-status" || part.type === "message/global-delivery-status",
  );
  if (status) {
    // The report's charset: RFC 6533's UTF-8, the part's own, else that of its human-readable text.
    const charset = status.type.includes("global")
      ? "utf-8"
      : (status.params.get("charset") ?? textPart?.params.get("charset"));
    const blocks = reportBlocks(bodyOf(status));
    const names = (fields: Fields) => RECIPIENT_FIELDS.some((name) => fields.has(name));
    // The first block is the message's; a report with one block that names a recipient has none.
    const [message, ...recipients] =
      blocks.length > 0 && !names(blocks[0]) ? blocks : [new Map() as Fields, ...blocks];
    return {
      ...base,
      type: "delivery-status",
      deliveryStatus: {
        message,
        recipients: recipients.filter(names).map((fields) => readRecipient(fields, charset)),
      },
    };
  }
  const feedback = parts.find((part) => part.type === "message/feedback-report");
  if (feedback) {
    const fields = parseFields(bodyOf(feedback));
    // Original-Rcpt-To (RFC 5965); Removal-Recipient in the opt-out reports that predate it.
    const named = [...(fields.get("original-rcpt-to") ?? []), ...(fields.get("removal-recipient") ?? [])];
    return {
      ...base,
      type: "feedback-report",
      feedback: {
        type: (first(fields, "feedback-type") ?? "").toLowerCase(),
        fields,
        originalRcptTo: named
          .slice(0, READING_LIMITS.addresses)
          .map(reportAddress)
          .filter((address): address is string => address !== undefined),
      },
    };
  }
  return base;
}
