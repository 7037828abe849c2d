/**
 * The production bundles (gatsby-node.ts's `onCreateWebpackConfig`):
 * - Gatsby moves code that several pages share (here the newsletter card, the dialog and the
 *   footer, used by the landing page and the Effects' pages) into a chunk of its own. A first
 *   visit to the landing page then downloads two files instead of one, 1.1 KB more gzipped (npm
 *   run size); with no shared chunk, each page's script carries its own copy.
 * - No source maps: the site's own code is not published as readable source, and visitors never
 *   download the maps anyway.
 * - Gatsby's list of browser plugins is replaced by the site's own (src/loading/browser-plugins.js,
 *   checked by build/browser-plugins.ts): Gatsby's internal Partytown plugin's browser hook does
 *   nothing in production, yet its `require("gatsby-script")` put about 5 KB gzipped of `<Script>`
 *   and Partytown code into every first visit; gatsby-plugin-manifest's does nothing without
 *   localised manifests, yet brought its options. The site has no `<Script>`.
 * - Gatsby's service-worker registration is replaced by src/loading/no-service-worker.ts: no
 *   plugin registers a service worker, and its code was about 300 bytes gzipped of the app bundle.
 * - React's and Gatsby's runtime's files carry V8's compile hint (build/compile-hints.ts).
 * - React DOM's modules run in the task of React's file, not in Gatsby's start (build/react-first.ts).
 * - The HTML renderer's hash depends on the browser's files (`browserFilesSalt`), so that a change
 *   to them alone, such as src/styles/global.css, writes every page again.
 * - In the HTML renderer supabase-js is an empty module: the pages import it only on a visitor's
 *   first use, which rendering never reaches, and its 1.3 MB chunk cost a cold build about 3 s of
 *   CPU of 48 (2 runs each, interleaved, 2026-11-29).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { CreateWebpackConfigArgs } from "gatsby";
import { checkBrowserPlugins } from "./browser-plugins";
import { CompileHintsPlugin } from "./compile-hints";
import { ReactFirstPlugin } from "./react-first";

/**
 * A digest of the files the browser build just wrote (webpack's stats, which Gatsby leaves in
 * `publicDir` until onPostBuild: each chunk's file names, the stylesheet's among them), or null
 * when there are none.
 *
 * Gatsby 5 writes a page's HTML again only when its data or the HTML renderer changed, and the
 * renderer's hash leaves out the browser's files, though every page inlines the stylesheet and
 * names the scripts. A change to src/styles/global.css alone made a new stylesheet, and the next
 * `gatsby build` said "There are no new or changed html files to build": every page kept the last
 * build's styles, for `npm run build` with a kept `.cache/` as for a host that keeps it between
 * deploys. As the renderer's `output.hashSalt`, this digest is part of its hash, so new browser
 * files make Gatsby write every page (e2e/start-freshness.test.ts).
 */
export function browserFilesSalt(publicDir: string): string | null {
  const statsFile = path.join(publicDir, "webpack.stats.json");
  if (!existsSync(statsFile)) return null;
  const { assetsByChunkName } = JSON.parse(readFileSync(statsFile, "utf8")) as {
    assetsByChunkName?: Record<string, string[]>;
  };
  const files = Object.entries(assetsByChunkName ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return createHash("sha256").update(JSON.stringify(files)).digest("hex").slice(0, 16);
}

/** Loaded in the browser on a visitor's first use (src/newsletter/functions-client.ts), never while rendering. */
const SUPABASE_JS = "@supabase/supabase-js";

/** The site's list of browser plugins, in place of Gatsby's (build/browser-plugins.ts). */
const BROWSER_PLUGINS = path.resolve("src/loading/browser-plugins.js");

export const productionBundles = ({ stage, getConfig, actions, plugins }: CreateWebpackConfigArgs): void => {
  if (stage === "build-html") {
    const config = getConfig();
    config.resolve = {
      ...config.resolve,
      alias: { ...config.resolve?.alias, [`${SUPABASE_JS}$`]: false },
    };
    // Gatsby builds the browser's bundles first; their stats are in public/ by now.
    // (`setWebpackConfig` drops `output`: the whole configuration is replaced.)
    const salt = browserFilesSalt("public");
    if (salt) config.output = { ...config.output, hashSalt: salt };
    actions.replaceWebpackConfig(config);
    return;
  }
  if (stage !== "build-javascript") return;
  checkBrowserPlugins(process.cwd());
  const config = getConfig();
  config.optimization.splitChunks.cacheGroups.shared = false;
  config.devtool = false;
  config.plugins.push(
    plugins.normalModuleReplacement(
      /[\\/]\.cache[\\/]register-service-worker\.js$/,
      path.resolve("src/loading/no-service-worker.ts"),
    ),
    // Its own `require` is resolved from its own folder, not from `.cache/`.
    plugins.normalModuleReplacement(
      /[\\/]\.cache[\\/]api-runner-browser-plugins\.js$/,
      (found: { createData?: { resource?: string; context?: string } }) => {
        if (!found.createData?.resource) return;
        found.createData.resource = BROWSER_PLUGINS;
        found.createData.context = path.dirname(BROWSER_PLUGINS);
      },
    ),
    new CompileHintsPlugin(),
    new ReactFirstPlugin(),
  );
  actions.replaceWebpackConfig(config);
};
