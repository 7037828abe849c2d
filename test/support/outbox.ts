/**
 * Reads the local stack's outbox (`$DATA_DIR/outbox/*.eml`) as a mail program would: the one
 * outbox reader of the backend tests, the browser tests and the benchmarks.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { simpleParser, type ParsedMail } from "mailparser";
import { eventually } from "./eventually";

/** The mail files, oldest first (their names start with the time they were written). */
export const outboxFiles = (outboxDir: string): string[] =>
  existsSync(outboxDir)
    ? readdirSync(outboxDir)
        .filter((name) => name.endsWith(".eml"))
        .sort()
    : [];

/**
 * Each mail file parsed once, however often a test waits on the outbox: the stack writes a file
 * whole and never changes it (server/outbox-mailer.ts), so its path, size and time say whether a
 * parse is still good. Waiting re-read every file every 25 ms before, the file's first mails again
 * and again as the outbox grew.
 */
const parsed = new Map<string, Promise<ParsedMail>>();

function parseMailFile(file: string): Promise<ParsedMail> {
  const { size, mtimeMs } = statSync(file);
  const key = `${file}\0${size}\0${mtimeMs}`;
  let mail = parsed.get(key);
  if (mail === undefined) {
    mail = simpleParser(readFileSync(file));
    parsed.set(key, mail);
  }
  return mail;
}

export async function readOutbox(outboxDir: string): Promise<ParsedMail[]> {
  return Promise.all(outboxFiles(outboxDir).map((name) => parseMailFile(path.join(outboxDir, name))));
}

export async function waitForOutbox(
  outboxDir: string,
  count: number,
  timeoutMs = 10_000,
): Promise<ParsedMail[]> {
  return eventually(() => readOutbox(outboxDir), {
    what: `${count} mails in ${outboxDir}`,
    timeoutMs,
    until: (mails) => mails.length >= count,
  });
}

export const recipients = (mail: ParsedMail): string[] =>
  [mail.to]
    .flat()
    .flatMap((to) => to?.value ?? [])
    .map((address) => address.address ?? "");

/** Mails to `address` (any letter case), in the order they were written. */
export async function mailsTo(outboxDir: string, address: string): Promise<ParsedMail[]> {
  const wanted = address.toLowerCase();
  return (await readOutbox(outboxDir)).filter((mail) =>
    recipients(mail).some((to) => to.toLowerCase() === wanted),
  );
}

/**
 * Waits (bounded) until at least `count` mails to `address` are in the outbox, and returns them
 * all: the stack sends a mail just after its answer.
 */
export async function waitForMailsTo(
  outboxDir: string,
  address: string,
  count = 1,
  timeoutMs = 10_000,
): Promise<ParsedMail[]> {
  return eventually(() => mailsTo(outboxDir, address), {
    what: `${count} mails to ${address} in ${outboxDir}`,
    timeoutMs,
    until: (mails) => mails.length >= count,
  });
}

/** The `?confirm=` or `?unsubscribe=` page link in a mail's text part. */
export function linkIn(mail: ParsedMail, param: "confirm" | "unsubscribe"): URL {
  const match = new RegExp(`https?://\\S+[?&]${param}=[A-Za-z0-9_-]+`).exec(mail.text ?? "");
  if (!match) throw new Error(`No ?${param}= link in:\n${mail.text}`);
  return new URL(match[0]);
}

/** A header's value as sent (unfolded), e.g. `rawHeader(mail, "List-Unsubscribe-Post")`. */
export function rawHeader(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((header) => header.key === name.toLowerCase())?.line;
  return line
    ?.slice(line.indexOf(":") + 1)
    .replace(/\r?\n[ \t]+/g, " ")
    .trim();
}

/** The http(s) one-click address from `List-Unsubscribe: <...>`. */
export function oneClickUrl(mail: ParsedMail): URL {
  const raw = rawHeader(mail, "List-Unsubscribe") ?? "";
  const match = /<(https?:[^>]+)>/.exec(raw);
  if (!match) throw new Error(`No http(s) List-Unsubscribe address in ${raw}`);
  return new URL(match[1]);
}
