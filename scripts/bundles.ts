/**
 * The production bundles (gatsby-node.ts's `onCreateWebpackConfig`):
 * - Gatsby moves code that several pages share (here the newsletter card, the dialog and the
 *   footer, used by the landing page and the Effects' pages) into a chunk of its own. A first
 *   visit to the landing page then downloads two files instead of one, 1.1 KB more gzipped (npm
 *   run size); with no shared chunk, each page's script carries its own copy.
 * - No source maps: the site's own code is not published as readable source, and visitors never
 *   download the maps anyway.
 * - Gatsby's internal Partytown plugin is replaced by an empty module (src/loading/no-partytown.ts):
 *   its browser hook is a no-op in production, yet it pulled `gatsby-script` (about 5 KB gzipped)
 *   into the app bundle. The site has no `<Script>`; a page that adds one must remove this line.
 * - React's and Gatsby's runtime's files carry V8's compile hint (scripts/compile-hints.ts).
 */
import path from "node:path";
import type { GatsbyNode } from "gatsby";
import { CompileHintsPlugin } from "./compile-hints";

export const productionBundles: GatsbyNode["onCreateWebpackConfig"] = ({
  stage,
  getConfig,
  actions,
  plugins,
}) => {
  if (stage !== "build-javascript") return;
  const config = getConfig();
  config.optimization.splitChunks.cacheGroups.shared = false;
  config.devtool = false;
  config.plugins.push(
    plugins.normalModuleReplacement(
      /internal-plugins[\\/]partytown[\\/]gatsby-browser\.js$/,
      path.resolve("src/loading/no-partytown.ts"),
    ),
    new CompileHintsPlugin(),
  );
  actions.replaceWebpackConfig(config);
};
