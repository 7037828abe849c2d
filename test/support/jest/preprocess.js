// The site project's transform: Gatsby's Babel preset, as Gatsby's unit-testing guide sets it up.
const babelOptions = {
  presets: [["babel-preset-gatsby", { reactRuntime: "automatic" }], "@babel/preset-typescript"],
};

module.exports = require("babel-jest").default.createTransformer(babelOptions);
