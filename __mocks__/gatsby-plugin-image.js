// StaticImage is compiled by gatsby-plugin-image's Babel plugin at build time; under Jest it
// renders a plain <img> with the same alt text.
const React = require("react");

module.exports = {
  ...jest.requireActual("gatsby-plugin-image"),
  StaticImage: ({ src, alt, className }) => React.createElement("img", { src, alt, className }),
};
