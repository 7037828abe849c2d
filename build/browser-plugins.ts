/**
 * The browser plugins Gatsby's start runs: Gatsby writes their list to
 * `.cache/api-runner-browser-plugins.js`, and the production bundles take
 * src/loading/browser-plugins.js instead (build/bundles.ts), which lists the site's own
 * gatsby-browser.tsx alone. This check keeps that true: it fails the build when Gatsby's list names
 * a plugin other than those that stand-in knows to leave out, or when the manifest is localised.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

/** Gatsby's generated list, from the project's root. */
export const GATSBY_BROWSER_PLUGINS = path.join(".cache", "api-runner-browser-plugins.js");

/**
 * The plugins the stand-in may leave out, and why, by what each `require` in Gatsby's list names:
 * a package's file from its `node_modules` folder on (Gatsby writes the path from `.cache/`, and a
 * project built in another folder finds its packages further up), a file of the project by its
 * path from the project's root (`gatsby-browser.tsx` is the site's own; a local plugin's is
 * a gatsby-browser file in a plugins folder, which the check then names by its path).
 */
export const KNOWN_BROWSER_PLUGINS: Record<string, string> = {
  "gatsby-plugin-manifest/gatsby-browser.js": "its hook does nothing without localised manifests",
  "gatsby-browser.tsx": "the site's own, listed by src/loading/browser-plugins.js",
  "gatsby/dist/internal-plugins/partytown/gatsby-browser.js":
    "its hook does nothing in production, yet it brought gatsby-script (about 5 KB gzipped)",
};

const MODULES = "node_modules/";

/** What a `require` in Gatsby's list names, as KNOWN_BROWSER_PLUGINS keys it. */
export const pluginName = (file: string): string =>
  file.includes(MODULES)
    ? file.slice(file.lastIndexOf(MODULES) + MODULES.length)
    : path.posix.relative(path.posix.sep, path.posix.join(path.posix.sep, ".cache", file));

/** The problems with Gatsby's list (its text): none when the stand-in runs what it would. */
export function browserPluginProblems(list: string): string[] {
  const required = [...list.matchAll(/require\(\s*['"`]([^'"`]+)['"`]\s*\)/g)].map((match) =>
    pluginName(match[1]),
  );
  const problems = required
    .filter((name) => !(name in KNOWN_BROWSER_PLUGINS))
    .map(
      (name) =>
        `Gatsby's browser plugins now include ${name}: add it to src/loading/browser-plugins.js and to build/browser-plugins.ts`,
    );
  if (!required.includes("gatsby-browser.tsx")) {
    problems.push("Gatsby's browser plugins no longer include the site's gatsby-browser.tsx");
  }
  if (/"localize"\s*:/.test(list)) {
    problems.push(
      "gatsby-plugin-manifest is localised: its browser hook now works, so list it in src/loading/browser-plugins.js",
    );
  }
  return problems;
}

/** Throws, naming every problem, unless the stand-in runs what Gatsby's list would. */
export function checkBrowserPlugins(root: string): void {
  const problems = browserPluginProblems(readFileSync(path.join(root, GATSBY_BROWSER_PLUGINS), "utf8"));
  if (problems.length) throw new Error(`build/browser-plugins.ts:\n- ${problems.join("\n- ")}`);
}
