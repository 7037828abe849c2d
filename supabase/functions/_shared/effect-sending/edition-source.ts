/**
 * Reads a published edition from the site: `${siteUrl}/effects/DATE/mail.json`. The site is the
 * one source of truth for what is mailed, so the sender needs no copy of the content.
 */
import { EditionError, isEditionDate, type MailEdition, parseEdition } from "./edition.ts";

export const editionPath = (date: string) => `effects/${date}/mail.json`;

export function checkEditionDate(date: string | undefined): string {
  if (!date || !isEditionDate(date))
    throw new EditionError(`The Effect's date must be a day written YYYY-MM-DD (got "${date ?? ""}")`);
  return date;
}

export async function fetchEdition(
  siteUrl: string,
  date: string,
  fetchImpl: typeof fetch = fetch,
): Promise<MailEdition> {
  const address = `${siteUrl}/${editionPath(date)}`;
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
