/**
 * Stands in for Gatsby's internal Partytown plugin in the browser bundle (see build/bundles.ts,
 * onCreateWebpackConfig). That plugin's only browser hook does nothing outside `gatsby develop`,
 * but its `require("gatsby-script")` cannot be tree-shaken and put about 5 KB gzipped of
 * `<Script>` and Partytown code into every first visit. The site uses neither.
 */
export {};
