/**
 * What the site publishes, as the local stack and the commands find it (`PublishedSite`): an
 * edition from the local build's `public/effects/DATE/mail.json` when it exists, else from the site
 * at `SITE_URL`; the newest one, for the welcome mail, likewise; the sender's names and time zone
 * from `content/`, which the build publishes as sender.json.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  EditionError,
  fetchEdition,
  type LatestEditionSource,
  type MailEdition,
  parseEdition,
  parseLatestDate,
  publishedLatestEdition,
  type PublishedSite,
} from "../supabase/functions/_shared/hosts.ts";
import type { SenderIdentity } from "../supabase/functions/_shared/contract/published.ts";
import { LATEST_EDITION_PATH, mailEditionPath } from "../supabase/functions/_shared/contract/published.ts";

export async function loadEdition(date: string, publicDir: string, siteUrl: string): Promise<MailEdition> {
  const file = path.join(publicDir, mailEditionPath(date));
  if (!existsSync(file)) return fetchEdition(siteUrl, date);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new EditionError(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseEdition(parsed, date, file);
}

/** The newest edition (the welcome mail's): the local build's `newsletter/latest.json`, else the site's. */
export function latestEdition(publicDir: string, siteUrl: string): LatestEditionSource {
  return async () => {
    const file = path.join(publicDir, LATEST_EDITION_PATH);
    if (!existsSync(file)) return publishedLatestEdition(siteUrl)();
    let date: string | null = null;
    try {
      date = parseLatestDate(JSON.parse(readFileSync(file, "utf8")));
    } catch {
      // reported below
    }
    if (!date) throw new EditionError(`${file} names no edition`);
    return loadEdition(date, publicDir, siteUrl);
  };
}

/** The published site for a host on this machine: the build in `publicDir`, the identity given (read from the content once). */
export function localPublishedSite(
  publicDir: string,
  identity: SenderIdentity,
  siteUrl: string,
): PublishedSite {
  return {
    identity: async () => identity,
    edition: (date) => loadEdition(date, publicDir, siteUrl),
    latestEdition: latestEdition(publicDir, siteUrl),
  };
}
