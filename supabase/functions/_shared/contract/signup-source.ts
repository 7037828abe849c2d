/**
 * Where a signup came from, as the site sends it to `send-confirmation` and the core keeps it with
 * the subscriber: which form, the page it was on, the host of the site that sent the visitor, and
 * the `utm_*` of the address the visit began at. Flat fields beside `email`, the same names in the
 * JSON body and in the plain form post (hidden inputs), read by one parser: a value that is not
 * what its field allows (an unknown form, not a site path, not a host name, not short printable
 * text, too long, not a string) is dropped, never stored and never a refusal. No cookie, no IP
 * address, no full referrer address. No imports: the site reads the names too.
 */

/** The forms a signup can come from: the dialog, the landing page's card, an Effect's, the archive's. */
export const SIGNUP_FORMS = ["dialog", "inline", "effect", "archive"] as const;
export type SignupFormName = (typeof SIGNUP_FORMS)[number];

/** The landing address's campaign fields the site carries to the form. */
export const UTM_FIELDS = ["utm_source", "utm_medium", "utm_campaign"] as const;

/** The fields, in the export's order: each is a column of `subscribers` (migration 20261128100000). */
export const SIGNUP_SOURCE_FIELDS = ["signup_form", "signup_page", "referrer_host", ...UTM_FIELDS] as const;
export type SignupSourceField = (typeof SIGNUP_SOURCE_FIELDS)[number];

/** A signup's source: each field as given when it passed its rule, else null. */
export type SignupSource = Record<SignupSourceField, string | null>;

/** The longest value each field keeps (in UTF-16 units, so never more characters than the column's check). */
export const SIGNUP_SOURCE_MAX_CHARS: Record<SignupSourceField, number> = {
  signup_form: 7,
  signup_page: 200,
  // A DNS name's own limit.
  referrer_host: 253,
  utm_source: 100,
  utm_medium: 100,
  utm_campaign: 100,
};

/** A path of the site: `/` then unreserved characters, `/` and percent-escapes; no query, fragment or `//`. */
const SITE_PATH = /^\/(?!\/)(?:[A-Za-z0-9\-._~/]|%[0-9A-Fa-f]{2})*$/;
/** A host name, lower case: dot-separated labels of letters, digits and inner hyphens, 63 at most each. */
const HOST_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** Printable text: letters, marks, digits, punctuation, symbols and spaces; no control or format character. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]+$/u;

const RULES: Record<SignupSourceField, (value: string) => string | null> = {
  signup_form: (value) => ((SIGNUP_FORMS as readonly string[]).includes(value) ? value : null),
  signup_page: (value) => (SITE_PATH.test(value) ? value : null),
  referrer_host: (value) => {
    const host = value.toLowerCase();
    return HOST_NAME.test(host) ? host : null;
  },
  utm_source: printable,
  utm_medium: printable,
  utm_campaign: printable,
};

function printable(value: string): string | null {
  const text = value.trim();
  return PRINTABLE.test(text) ? text : null;
}

/**
 * The source in a signup's fields (the JSON object, or the form's fields): every field that passes
 * its rule, the others null. Never throws: the address is handled the same whatever this finds.
 */
export function parseSignupSource(fields: Record<string, unknown>): SignupSource {
  const source = {} as SignupSource;
  for (const field of SIGNUP_SOURCE_FIELDS) {
    const value = fields[field];
    source[field] =
      typeof value === "string" && value.length <= SIGNUP_SOURCE_MAX_CHARS[field]
        ? RULES[field](value)
        : null;
  }
  return source;
}
