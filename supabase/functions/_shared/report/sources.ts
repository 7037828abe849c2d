/**
 * A reader's source, the one name the owner's report groups readers by, taken from what the
 * subscriber's row keeps of its first signup (migration 20261128100000) or its import, the first
 * of these that is there:
 *
 * 1. an import's provider: `import:mailchimp` when the confirmed consent (`consent_source`) starts
 *    with `import:` (what `subscribers import` records), whatever follows the name;
 * 2. the landing address's `utm_source`, in lower case (`podcast`, `youtube`);
 * 3. the referring site's host without `www.` (`youtube.com`, `instagram.com`);
 * 4. the form alone, when the visit named nothing else: `form:dialog`, `form:inline`,
 *    `form:effect`, `form:archive`;
 * 5. `unknown`: signups from before sources were kept, or from a client that sent none.
 *
 * The long tail is grouped: the report shows the largest few sources and sums the rest as `other`.
 */

/** The SQL expression of a `subscribers` row's source, by the rules above. */
export const SOURCE_SQL = `case
    when lower(consent_source) ~ '^import:[a-z0-9_-]+' then substring(lower(consent_source) from '^import:[a-z0-9_-]+')
    when utm_source is not null then lower(utm_source)
    when referrer_host is not null then regexp_replace(referrer_host, '^www\\.', '')
    when signup_form is not null then 'form:' || signup_form
    else 'unknown'
  end`;

/** The group the sources beyond the largest few are summed into. */
export const OTHER_SOURCE = "other";

/** How many sources the report shows by name, by default; the rest are `other`. */
export const DEFAULT_TOP_SOURCES = 10;

/**
 * The sources to show by name, the first `top` of `ranked` (largest first), and the name each
 * source is counted under: itself, or `other` when it is beyond the top. A single source beyond
 * the top keeps its name (an `other` of one says less than the name).
 */
export function groupSources(
  ranked: string[],
  top: number,
): { shown: string[]; groupOf: (source: string) => string } {
  const fits = ranked.length <= top + 1 && !ranked.includes(OTHER_SOURCE);
  const named = new Set(fits ? ranked : ranked.filter((source) => source !== OTHER_SOURCE).slice(0, top));
  const shown = fits ? [...named] : [...named, OTHER_SOURCE];
  return { shown, groupOf: (source) => (named.has(source) ? source : OTHER_SOURCE) };
}
