// PostCSS for gatsby-plugin-postcss: Tailwind, then Autoprefixer.
module.exports = {
  plugins: {
    tailwindcss: {},
    autoprefixer: {},
  },
};
