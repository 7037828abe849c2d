/**
 * Stands in for Gatsby's service-worker registration in the browser bundle (see build/bundles.ts,
 * onCreateWebpackConfig). Gatsby's start requires it only when a browser plugin's
 * `registerServiceWorker` returns true, and none of the site's does, yet webpack cannot leave out a
 * `require` behind a condition: its code was about 300 bytes gzipped of every first visit. A plugin
 * that registers one (gatsby-plugin-offline) is caught when the site is built
 * (build/browser-plugins.ts); should the site's own gatsby-browser.tsx ever register one, the start
 * stops here, loudly, until this replacement is removed.
 */
throw new Error("build/bundles.ts leaves Gatsby's service-worker registration out: remove that replacement");
export {};
