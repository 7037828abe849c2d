/**
 * Where the local stack and the `effect` command find a published edition: the local build's
 * `public/effects/DATE/mail.json` when it exists, else the site at `SITE_URL`.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  EditionError,
  type MailEdition,
  parseEdition,
} from "../supabase/functions/_shared/effect-sending/edition.ts";
import { fetchEdition } from "../supabase/functions/_shared/effect-sending/edition-source.ts";
import { mailEditionPath } from "../supabase/functions/_shared/published.ts";

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
