import { browserPluginProblems } from "../browser-plugins";

/** Gatsby's generated `.cache/api-runner-browser-plugins.js` for this site, as Gatsby 5 writes it. */
const manifest = `{
      plugin: require('../node_modules/gatsby-plugin-manifest/gatsby-browser.js'),
      options: {"plugins":[],"name":"The Purpose Effect","start_url":"/","legacy":true},
    }`;
const site = `{
      plugin: require('../gatsby-browser.tsx'),
      options: {"plugins":[]},
    }`;
const partytown = `{
      plugin: require('../node_modules/gatsby/dist/internal-plugins/partytown/gatsby-browser.js'),
      options: {"plugins":[]},
    }`;
const list = (...plugins: string[]) => `module.exports = [${plugins.join(",")}]\n`;

describe("the browser plugins the site's start runs", () => {
  it("are Gatsby's, less the plugins whose hooks do nothing here", () => {
    expect(browserPluginProblems(list(manifest, site, partytown))).toEqual([]);
  });

  it("are the same for a project built in another folder, whose packages Gatsby finds further up", () => {
    const further = (entry: string) => entry.replace("'../node_modules/", "'../../node_modules/");
    expect(browserPluginProblems(list(further(manifest), site, further(partytown)))).toEqual([]);
  });

  it("fail the build when Gatsby's list gains a plugin the site's list would leave out", () => {
    const offline = `{ plugin: require('../node_modules/gatsby-plugin-offline/gatsby-browser.js'), options: {} }`;
    expect(browserPluginProblems(list(manifest, site, offline, partytown))).toEqual([
      "Gatsby's browser plugins now include gatsby-plugin-offline/gatsby-browser.js: " +
        "add it to src/loading/browser-plugins.js and to build/browser-plugins.ts",
    ]);
  });

  it("fail the build when a plugin of the project's own has a gatsby-browser file", () => {
    const local = `{ plugin: require('../plugins/reading-time/gatsby-browser.tsx'), options: {} }`;
    expect(browserPluginProblems(list(manifest, site, local, partytown))).toEqual([
      "Gatsby's browser plugins now include plugins/reading-time/gatsby-browser.tsx: " +
        "add it to src/loading/browser-plugins.js and to build/browser-plugins.ts",
    ]);
  });

  it("fail the build when the manifest is localised, so that its hook does something", () => {
    const localised = manifest.replace(
      '"legacy":true',
      '"legacy":true,"localize":[{"start_url":"/de/","lang":"de"}]',
    );
    expect(browserPluginProblems(list(localised, site, partytown))).toEqual([
      "gatsby-plugin-manifest is localised: its browser hook now works, so list it in src/loading/browser-plugins.js",
    ]);
  });

  it("fail the build when the site's own gatsby-browser is no longer in Gatsby's list", () => {
    expect(browserPluginProblems(list(manifest, partytown))).toEqual([
      "Gatsby's browser plugins no longer include the site's gatsby-browser.tsx",
    ]);
  });
});
