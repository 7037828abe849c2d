/**
 * Stands in for Gatsby's service-worker registration in the browser bundle (see build/bundles.ts,
 * onCreateWebpackConfig). Gatsby's start requires it only when a plugin's `registerServiceWorker`
 * returns true, and none of the site's plugins registers one, yet webpack cannot leave out a
 * `require` behind a condition: its code was about 540 bytes gzipped of every first visit. A plugin
 * that does register one (gatsby-plugin-offline) stops the start here, loudly, until the
 * replacement is removed.
 */
throw new Error("build/bundles.ts leaves Gatsby's service-worker registration out: remove that replacement");
export {};
