/**
 * The sender of every mail as one mailbox: a display name and our address, kept apart until a
 * transport writes them. The name is the site's (`sender.json`, which anyone who edits the site's
 * content writes) or `MAIL_FROM`'s, so it may hold anything: `CEO <ceo@bank.example>, x` written
 * bare before `<newsletter@…>` makes two mailboxes, and where BOUNCE_ADDRESS is unset the envelope
 * sender is the first. Written here, any name gives exactly one mailbox with our address
 * (RFC 5322 §3.4): a name of plain words as it is, any other ASCII as a quoted-string with `"` and
 * `\` escaped (§3.2.4), one with other characters as RFC 2047 encoded-words, which every mail API
 * takes in a `from` (SES requires them there). nodemailer (SMTP, the MIME for SES and the outbox)
 * is handed the two parts and writes the header by the same rules.
 */

export interface Mailbox {
  /** Any text, or "" for none; control characters are made spaces (`mailbox`). */
  name: string;
  /** `newsletter@example.com`. */
  address: string;
}

/** RFC 5322 atext: a name of such words, one space apart, needs no quotes. */
const PLAIN_NAME = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?: [A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** An address this module writes bare: no space, quote, bracket or second `@`. */
const ADDRESS = /^[^\s"(),:;<>@[\\\]]+@[^\s"(),:;<>@[\\\]]+$/;
/** RFC 2047 §2: an encoded-word is at most 75 characters; `=?UTF-8?B?` and `?=` take 12. */
const ENCODED_WORD_BYTES = 45;

/** A name as one line of text: no control characters (a line break would end the header), no runs of spaces. */
const oneLine = (name: string): string =>
  name
    // eslint-disable-next-line no-control-regex -- control characters are what is removed.
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/ {2,}/g, " ")
    .trim();

/** A mailbox with its name made one line of text. */
export const mailbox = (name: string, address: string): Mailbox => ({ name: oneLine(name), address });

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** `=?UTF-8?B?…?=` words, each whole characters within RFC 2047's 75, one space apart. */
function encodedWords(text: string): string {
  const encoder = new TextEncoder();
  const words: string[] = [];
  let chunk = "";
  for (const char of text) {
    if (chunk && encoder.encode(chunk + char).length > ENCODED_WORD_BYTES) {
      words.push(chunk);
      chunk = "";
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${base64(encoder.encode(word))}?=`).join(" ");
}

/** A display name as RFC 5322 writes it: plain words, a quoted-string, or encoded-words. */
export function displayName(text: string): string {
  const name = oneLine(text);
  // `=?` bare would read as the start of an encoded-word.
  if (PLAIN_NAME.test(name) && !name.includes("=?")) return name;
  if (/^[\x20-\x7e]*$/.test(name)) return `"${name.replace(/[\\"]/g, "\\$&")}"`;
  return encodedWords(name);
}

/** `Name <address>`, or the bare address without a name: for an API's `from` (Resend, SES). */
export const formatMailbox = ({ name, address }: Mailbox): string =>
  name ? `${displayName(name)} <${address}>` : address;

/**
 * `MAIL_FROM` as an operator writes it: `hello@example.com`, `Effect of the Day <hello@example.com>`
 * or `"Acme, Inc." <hello@example.com>` (quotes as RFC 5322 has them, `\"` inside). Null for
 * anything that is not exactly one mailbox: a list, a group, a comment, a name with `,` `;` `<` `>`
 * `@` unquoted, or an encoded-word (write the name as text; it is encoded when sent).
 */
export function parseMailbox(text: string): Mailbox | null {
  const value = text.trim();
  if (ADDRESS.test(value)) return mailbox("", value);
  const match = /^(.*?)\s*<([^<>]*)>$/.exec(value);
  if (!match || !ADDRESS.test(match[2])) return null;
  const [, written, address] = match;
  let name: string;
  if (written.startsWith('"')) {
    const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(written);
    if (!quoted) return null;
    name = quoted[1].replace(/\\(.)/g, "$1");
  } else {
    // Words of atext, non-ASCII letters (RFC 6532) and RFC 5322's obsolete `.` in a phrase.
    if (!/^[^"(),:;<>@[\\\]]*$/.test(written)) return null;
    name = written;
  }
  if (/=\?[^?]+\?[bq]\?/i.test(name)) return null;
  return mailbox(name, address);
}
