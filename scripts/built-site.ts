/**
 * What `gatsby build` leaves in `public/` besides the pages, settled after it: `robots.txt`, and
 * none of the build's internals.
 */
import { readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** robots.txt points at the sitemap on the site's own address, which lives in content/brand.yaml. */
export async function writeRobots(publicDir: string, siteUrl: string): Promise<void> {
  await writeFile(
    path.join(publicDir, "robots.txt"),
    `User-agent: *\nAllow: /\n\nSitemap: ${siteUrl.replace(/\/$/, "")}/sitemap-index.xml\n`,
  );
}

/**
 * Build internals Gatsby leaves in public/ that no page loads: webpack's stats (every module's
 * path on the build machine) and any source map. Removed after the pages are written (the HTML
 * step reads the stats), so neither the local stack nor a static host can serve them.
 */
export async function removeBuildInternals(publicDir: string): Promise<void> {
  const names = await readdir(publicDir, { recursive: true });
  await Promise.all(
    names
      .filter((name) => name === "webpack.stats.json" || name.endsWith(".map"))
      .map((name) => rm(path.join(publicDir, name), { force: true })),
  );
}
