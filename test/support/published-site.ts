/**
 * A stand-in for the static host the functions read the published site from (the local stack
 * reads `public/` instead): each path given answers its JSON, any other a 404. A value may be a
 * function of the site's own address, as a mail edition's links are. The tests and the
 * benchmarks that run a function against a site of their own share it.
 */
import {
  mailEditionPath,
  SENDER_IDENTITY_PATH,
} from "../../supabase/functions/_shared/contract/published.ts";
import { contentIdentity, realSizedEdition } from "./effect-fixtures.ts";
import { type LoopbackServer, serveOnLoopback } from "./loopback-http.ts";

export type PublishedFiles = Record<string, unknown>;

export async function servePublishedSite(files: PublishedFiles): Promise<LoopbackServer> {
  // Each answer made once, when the site's address is known.
  let bodies = new Map<string, string>();
  const site = await serveOnLoopback(async (request, response) => {
    const body = bodies.get(request.url ?? "");
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { "Content-Type": "application/json" }).end(body);
  });
  bodies = new Map(
    Object.entries(files).map(([urlPath, file]) => [
      urlPath,
      JSON.stringify(typeof file === "function" ? (file as (url: string) => unknown)(site.url) : file),
    ]),
  );
  return site;
}

/**
 * The site as a send of `date` reads it: the day's mail edition, a built Effect's size (`kib`),
 * and the sender's names and words from content/.
 */
export const sendingDay = (date: string, kib?: number): PublishedFiles => ({
  [mailEditionPath(date)]: (url: string) => realSizedEdition(date, url, kib),
  [SENDER_IDENTITY_PATH]: contentIdentity(),
});
