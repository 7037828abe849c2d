/**
 * E-mail addresses: the browser's `type=email` rule, so the server accepts exactly what the
 * signup field accepts, and the normal form that decides whether two signups are one person.
 */

/**
 * The HTML standard's "valid e-mail address" pattern (its `\/` needs no escape inside a class here):
 * https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address
 */
export const WHATWG_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** RFC 5321's limit on a forward path, which is what a mail server will accept. */
export const MAX_EMAIL_LENGTH = 254;

export type EmailCheck =
  { ok: true; email: string } | { ok: false; reason: "missing" | "too_long" | "invalid" };

/**
 * The browser's value sanitization for `type=email`: strip newlines, then leading and trailing
 * ASCII whitespace (https://html.spec.whatwg.org/multipage/input.html#email-state-(type=email)).
 */
export const sanitizeEmail = (value: string): string =>
  value.replace(/[\r\n]/g, "").replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "");

/**
 * Validates and normalises an address: sanitized as the browser does, checked against the
 * WHATWG pattern and the length limit, and its domain lower-cased (domains are case-insensitive;
 * the local part is kept as typed, because a few servers do treat it case-sensitively).
 */
export function checkEmail(value: unknown): EmailCheck {
  if (typeof value !== "string") return { ok: false, reason: "missing" };
  const email = sanitizeEmail(value);
  if (email === "") return { ok: false, reason: "missing" };
  if (email.length > MAX_EMAIL_LENGTH) return { ok: false, reason: "too_long" };
  if (!WHATWG_EMAIL.test(email)) return { ok: false, reason: "invalid" };
  const at = email.lastIndexOf("@");
  return { ok: true, email: `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}` };
}

/** Gmail ignores the dots of a local part, and googlemail.com is gmail.com. */
const GMAIL = new Set(["gmail.com", "googlemail.com"]);

/**
 * The mailbox an address delivers to, for limits that must not be dodged by spelling it another
 * way: `Jane+news1@Example.com` and `jane+news2@example.com` are one inbox. The local part is
 * case-folded and loses its `+tag` (sub-addressing, which the common providers support); at Gmail
 * it loses its dots too (`j.a.n.e@googlemail.com` is `jane@gmail.com`).
 */
export function mailboxKey(email: string): string {
  const at = email.lastIndexOf("@");
  let local = email.slice(0, at).toLowerCase();
  let domain = email.slice(at + 1).toLowerCase();
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL.has(domain)) {
    local = local.replaceAll(".", "") || local;
    domain = "gmail.com";
  }
  return `${local}@${domain}`;
}
