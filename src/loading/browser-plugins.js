/**
 * Stands in for Gatsby's generated list of browser plugins (`.cache/api-runner-browser-plugins.js`,
 * see build/bundles.ts): the site's own gatsby-browser.tsx, and nothing else. Gatsby's list also
 * names gatsby-plugin-manifest, whose browser hook does nothing without localised manifests yet
 * brought all of its options (the manifest's name, description, colours) into every first visit,
 * and Gatsby's internal Partytown plugin, whose hook does nothing in production yet brought
 * `gatsby-script` and Partytown's code (about 5 KB gzipped). build/browser-plugins.ts
 * fails the build when Gatsby's list names any other plugin, so a new one is never left out
 * silently. CommonJS, as the file it stands in for: Gatsby reads it with `require`.
 */
module.exports = [{ plugin: require("../../gatsby-browser"), options: { plugins: [] } }];
