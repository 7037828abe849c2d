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

/** What each plugin's `require` in Gatsby's list names, and why the stand-in may leave it out. */
export const KNOWN_BROWSER_PLUGINS: Record<string, string> = {
  "../node_modules/gatsby-plugin-manifest/gatsby-browser.js":
    "its hook does nothing without localised manifests",
  "../gatsby-browser.tsx": "the site's own, listed by src/loading/browser-plugins.js",
  "../node_modules/gatsby/dist/internal-plugins/partytown/gatsby-browser.js":
    "its hook does nothing in production, yet it brought gatsby-script (about 5 KB gzipped)",
};

/** The problems with Gatsby's list (its text): none when the stand-in runs what it would. */
export function browserPluginProblems(list: string): string[] {
  const required = [...list.matchAll(/require\(\s*['"`]([^'"`]+)['"`]\s*\)/g)].map((match) => match[1]);
  const problems = required
    .filter((file) => !(file in KNOWN_BROWSER_PLUGINS))
    .map(
      (file) =>
        `Gatsby's browser plugins now include ${file}: add it to src/loading/browser-plugins.js and to build/browser-plugins.ts`,
    );
  if (!required.includes("../gatsby-browser.tsx"))
    problems.push("Gatsby's browser plugins no longer include the site's gatsby-browser.tsx");
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
