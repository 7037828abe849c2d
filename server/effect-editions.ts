/**
 * Where the local stack and the `effect` command find a published edition: the local build's
 * `public/effects/DATE/mail.json` when it exists, else the site at `SITE_URL`; and the newest one,
 * for the welcome mail.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  EditionError,
  type MailEdition,
  parseEdition,
} from "../supabase/functions/_shared/effect-sending/edition.ts";
import {
  fetchEdition,
  type LatestEditionSource,
  parseLatestDate,
  publishedLatestEdition,
} from "../supabase/functions/_shared/effect-sending/edition-source.ts";
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
