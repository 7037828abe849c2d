/**
 * Reads what the site published for the sender (published.ts): an edition,
 * `${siteUrl}/effects/DATE/mail.json`, and the sender's identity, `${siteUrl}/newsletter/sender.json`.
 * The site is the one source of truth for what is mailed, so the sender needs no copy of the content.
 */
import { isCalendarDay } from "../contract/calendar-day.ts";
import { mailCopyProblems } from "../contract/mail-template.ts";
import {
  type IdentitySource,
  LATEST_EDITION_PATH,
  mailEditionPath,
  SENDER_IDENTITY_PATH,
  type SenderIdentity,
} from "../contract/published.ts";
import { EditionError, type MailEdition, parseEdition } from "./edition.ts";

export function checkEditionDate(date: string | undefined): string {
  if (!date || !isCalendarDay(date))
    throw new EditionError(`The Effect's date must be a day written YYYY-MM-DD (got "${date ?? ""}")`);
  return date;
}

export async function fetchEdition(
  siteUrl: string,
  date: string,
  fetchImpl: typeof fetch = fetch,
): Promise<MailEdition> {
  const address = `${siteUrl}${mailEditionPath(date)}`;
  let response: Response;
  try {
    response = await fetchImpl(address, { signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new EditionError(
      `Could not read ${address}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (response.status === 404)
    throw new EditionError(`The Effect of ${date} is not published: ${address} answered 404`);
  if (!response.ok) throw new EditionError(`Could not read ${address}: it answered ${response.status}`);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new EditionError(`${address} is not JSON`);
  }
  return parseEdition(body, date, address);
}

/** Where the welcome mail finds its Effect: the newest edition, or null when none is published. */
export type LatestEditionSource = () => Promise<MailEdition | null>;

/** A parsed latest.json: the date of the newest edition, or null for anything else. */
export function parseLatestDate(value: unknown): string | null {
  const date = (value as { date?: unknown } | null)?.date;
  return typeof date === "string" && isCalendarDay(date) ? date : null;
}

/** The newest edition the site publishes (`/newsletter/latest.json`, then its mail.json). */
export function publishedLatestEdition(
  siteUrl: string,
  fetchImpl: typeof fetch = fetch,
): LatestEditionSource {
  return async () => {
    const address = `${siteUrl}${LATEST_EDITION_PATH}`;
    const response = await fetchImpl(address, { signal: AbortSignal.timeout(15_000) });
    if (response.status === 404) return null;
    if (!response.ok) throw new EditionError(`Could not read ${address}: it answered ${response.status}`);
    const date = parseLatestDate(await response.json().catch(() => null));
    if (!date) throw new EditionError(`${address} names no edition`);
    return fetchEdition(siteUrl, date, fetchImpl);
  };
}

/** A parsed sender.json, checked: both names, a time zone this runtime knows, and the mails' words. */
export function parseSenderIdentity(value: unknown, source: string): SenderIdentity {
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  for (const field of ["brandName", "newsletterName", "timeZone"]) {
    if (typeof record[field] !== "string" || (record[field] as string).trim() === "")
      throw new EditionError(`${source}: field "${field}" is missing or empty`);
  }
  const identity = record as unknown as SenderIdentity;
  try {
    new Intl.DateTimeFormat("en-CA", { timeZone: identity.timeZone });
  } catch {
    throw new EditionError(`${source}: "${identity.timeZone}" is not a time zone`);
  }
  const problems = mailCopyProblems(record.mails);
  if (problems.length > 0)
    throw new EditionError(`${source}: ${problems.join("; ")} (content/newsletter.yaml, rebuild the site)`);
  return {
    brandName: identity.brandName,
    newsletterName: identity.newsletterName,
    timeZone: identity.timeZone,
    mails: identity.mails,
  };
}

/**
 * The identity the site publishes, read from `siteUrl` and kept for `ttlMs`; a failed read keeps
 * the last good one, and with none it throws (the mail waits: it stays queued, the call retries).
 */
export function publishedIdentity(
  siteUrl: string,
  options: { fetchImpl?: typeof fetch; ttlMs?: number; now?: () => number } = {},
): IdentitySource {
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  let cached: { identity: SenderIdentity; at: number } | null = null;
  return async () => {
    if (cached && now() - cached.at < ttlMs) return cached.identity;
    const address = `${siteUrl}${SENDER_IDENTITY_PATH}`;
    try {
      const response = await (options.fetchImpl ?? fetch)(address, { signal: AbortSignal.timeout(15_000) });
      if (!response.ok) throw new EditionError(`${address} answered ${response.status}`);
      cached = { identity: parseSenderIdentity(await response.json(), address), at: now() };
      return cached.identity;
    } catch (error) {
      if (cached) return cached.identity;
      throw new EditionError(
        `Could not read the sender's names from ${address} (published by the site's build): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
}

/** What the site's build publishes for the sender, wherever a host finds it. */
export interface PublishedSite {
  /** The names and time zone the mail carries (sender.json). */
  identity: IdentitySource;
  /** The mail edition of a day (mail.json); throws `EditionError` when it is not published. */
  edition(date: string): Promise<MailEdition>;
  /** The newest edition, for the welcome mail. */
  latestEdition: LatestEditionSource;
}

/** The published site over HTTP at `siteUrl` (the functions on Supabase read it so). */
export function publishedSite(siteUrl: string, fetchImpl?: typeof fetch): PublishedSite {
  return {
    identity: publishedIdentity(siteUrl, { fetchImpl }),
    edition: (date) => fetchEdition(siteUrl, date, fetchImpl),
    latestEdition: publishedLatestEdition(siteUrl, fetchImpl),
  };
}
