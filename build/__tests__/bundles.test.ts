import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { browserFilesSalt } from "../bundles";

const ROOT = path.resolve(__dirname, "../..");

describe("the HTML renderer's hash and the browser's files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "bundles-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const stats = (assetsByChunkName: Record<string, string[]>) =>
    writeFileSync(path.join(dir, "webpack.stats.json"), JSON.stringify({ assetsByChunkName }));

  it("changes with any file the browser build wrote, and only then", () => {
    expect(browserFilesSalt(dir)).toBeNull();
    stats({ app: ["app-1.js"], styles: ["styles.a.css"] });
    const first = browserFilesSalt(dir);
    stats({ styles: ["styles.a.css"], app: ["app-1.js"] });
    expect(browserFilesSalt(dir)).toBe(first);
    stats({ app: ["app-1.js"], styles: ["styles.b.css"] });
    expect(browserFilesSalt(dir)).not.toBe(first);
    stats({ app: ["app-2.js"], styles: ["styles.a.css"] });
    expect(browserFilesSalt(dir)).not.toBe(first);
  });
});

/**
 * A real `gatsby build`, twice, of a one-page site with a stylesheet and the project's webpack
 * settings (gatsby-node's `onCreateWebpackConfig`), from the same cache: the second build after a
 * change to the stylesheet alone. Gatsby 5 left the page with the first stylesheet.
 */
describe("a second gatsby build after a change to the stylesheet alone", () => {
  let site: string;
  beforeAll(() => {
    site = mkdtempSync(path.join(tmpdir(), "bundles-site-"));
    symlinkSync(path.join(ROOT, "node_modules"), path.join(site, "node_modules"));
    mkdirSync(path.join(site, "src", "pages"), { recursive: true });
    // What the settings name by its path from the site's folder (the empty Partytown module).
    symlinkSync(path.join(ROOT, "src", "loading"), path.join(site, "src", "loading"));
    writeFileSync(
      path.join(site, "package.json"),
      JSON.stringify({
        name: "stylesheet-site",
        private: true,
        dependencies: { gatsby: "*", react: "*", "react-dom": "*" },
      }),
    );
    writeFileSync(path.join(site, "gatsby-config.js"), "module.exports = { plugins: [] };\n");
    writeFileSync(
      path.join(site, "gatsby-node.js"),
      [
        'require("tsx/cjs");',
        `exports.onCreateWebpackConfig = require(${JSON.stringify(path.join(ROOT, "build/bundles.ts"))}).productionBundles;`,
        "",
      ].join("\n"),
    );
    writeFileSync(
      path.join(site, "src", "pages", "index.js"),
      [
        'import * as React from "react";',
        'import "../styles.css";',
        'export default function Page() { return React.createElement("h1", { className: "title" }, "A page"); }',
        "",
      ].join("\n"),
    );
  });
  afterAll(() => rmSync(site, { recursive: true, force: true }));

  const build = (css: string) => {
    writeFileSync(path.join(site, "src", "styles.css"), css);
    const result = spawnSync(path.join(ROOT, "node_modules/.bin/gatsby"), ["build"], {
      cwd: site,
      encoding: "utf8",
      env: { ...process.env, GATSBY_TELEMETRY_DISABLED: "1", CI: "1" },
      // spawnSync holds Jest's own timer: a build that hangs is stopped here.
      timeout: 120_000,
    });
    if (result.error) throw new Error(`gatsby build did not finish: ${result.error.message}`);
    if (result.status !== 0) throw new Error(`gatsby build failed:\n${result.stdout}\n${result.stderr}`);
    return readFileSync(path.join(site, "public", "index.html"), "utf8");
  };

  it("writes the page again with the new stylesheet", () => {
    expect(build(".title { color: #123456; }\n")).toContain("#123456");
    const page = build(".title { color: #654321; }\n");
    expect(page).toContain("#654321");
    expect(page).not.toContain("#123456");
  }, 300_000);
});
