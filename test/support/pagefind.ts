// What Pagefind wrote into a site's index (build/search-index.ts), read back as a test reads it.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { SEARCH_DIR } from "../../build/search-index";

/** One page's record: its address, words, title and day, and whatever else Pagefind keeps. */
export interface PagefindRecord {
  url: string;
  content: string;
  meta: Record<string, string>;
}

/** Every page's record in the index under `publicDir`, by address. */
export function pagefindRecords(publicDir: string): PagefindRecord[] {
  const folder = path.join(publicDir, SEARCH_DIR, "fragment");
  return readdirSync(folder)
    .map((name) => {
      // Pagefind's fragments: gzip, then a signature before the JSON.
      const text = gunzipSync(readFileSync(path.join(folder, name))).toString("utf8");
      if (!text.startsWith("pagefind_dcd")) throw new Error(`${name} is not one of Pagefind's fragments`);
      return JSON.parse(text.slice("pagefind_dcd".length)) as PagefindRecord;
    })
    .sort((a, b) => a.url.localeCompare(b.url));
}
