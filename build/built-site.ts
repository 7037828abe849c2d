/**
 * The build's first step after the pages: what `gatsby build` leaves in `public/` besides them,
 * settled: `robots.txt`, the icons made small, and none of the build's internals.
 */
import { existsSync } from "node:fs";
import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { type BuildStepArgs, PUBLIC_DIR, query } from "./build-step";

export async function settleBuiltSite(build: BuildStepArgs): Promise<void> {
  const { brand } = await query<{ brand: { siteUrl: string } }>(
    build,
    "the site's address for robots.txt",
    `
      query SiteAddress {
        brand {
          siteUrl
        }
      }
    `,
  );
  await removeBuildInternals(PUBLIC_DIR);
  await writeRobots(PUBLIC_DIR, brand.siteUrl);
  build.reporter.info(`Icons: ${await compactIcons(PUBLIC_DIR)} bytes smaller as palette PNGs`);
}

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

/**
 * The web manifest's icons and the favicon (gatsby-plugin-manifest writes them as full-colour PNGs,
 * with no say in how) rewritten as palette PNGs (sharp's libimagequant, up to 256 colours): the
 * icon is a few flat colours, so the 144 px one a phone fetches while the page loads goes from 4.7
 * to 3.1 KB with no change a reader can see. A file already in a palette is left alone (a second
 * build), and one the rewrite would not make smaller is kept. Returns the bytes saved.
 */
export async function compactIcons(publicDir: string): Promise<number> {
  const icons = (await readdir(path.join(publicDir, "icons")).catch(() => [] as string[]))
    .filter((name) => name.endsWith(".png"))
    .map((name) => path.join(publicDir, "icons", name));
  const favicon = path.join(publicDir, "favicon-32x32.png");
  let saved = 0;
  for (const file of [...icons, ...(existsSync(favicon) ? [favicon] : [])]) {
    const original = await readFile(file);
    // PNG's colour type, in the IHDR chunk that comes first: 3 is a palette.
    if (original[25] === 3) continue;
    const compact = await sharp(original).png({ palette: true, compressionLevel: 9, effort: 10 }).toBuffer();
    if (compact.length < original.length) {
      await writeFile(file, compact);
      saved += original.length - compact.length;
    }
  }
  return saved;
}
