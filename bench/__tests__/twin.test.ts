import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { withoutScripts, writeTwin } from "../twin";

// The shapes of Gatsby's output the twin meets: today's build, whose scripts sit in <body> and
// run at once, and a build that keeps them in a template and starts them once the page has loaded.
const HEAD =
  '<head><meta charset="utf-8"/><link rel="preload" href="/static/anton.woff2" as="font" type="font/woff2" crossorigin="anonymous"/>' +
  '<link rel="stylesheet" href="/styles.css"/>' +
  '<script type="application/ld+json" data-gatsby-head="true">{"@type":"Person"}</script>';
const HERO = '<main><h1>The Purpose Effect</h1><img src="/static/hero.avif" alt="A father and his child"/>';

describe("the no-JavaScript twin", () => {
  it("takes every script out of today's build and keeps every other byte", () => {
    const html =
      `<!DOCTYPE html><html lang="en">${HEAD}</head><body>${HERO}<button type="button">Join the Movement</button></main>` +
      '<script id="gatsby-script-loader">/*<![CDATA[*/window.pagePath="/";/*]]>*/</script>' +
      '<script src="/webpack-runtime.js" async></script><script src="/app.js" async></script></body></html>';

    expect(withoutScripts(html)).toEqual({
      html: `<!DOCTYPE html><html lang="en">${HEAD}</head><body>${HERO}<button type="button">Join the Movement</button></main></body></html>`,
      removed: 3,
    });
  });

  it("takes out a build's script template, its starter, script preloads and inline handlers", () => {
    const html =
      `<!DOCTYPE html><html lang="en">${HEAD}<link rel="modulepreload" href="/app.mjs"/>` +
      '<link as="script" rel="preload" href="/framework.js"/></head>' +
      `<body>${HERO}<a href="#newsletter" onclick="wantScripts(event)">Join the Movement</a></main>` +
      '<template id="gatsby-scripts"><script src="/framework.js" async></script><script>window.x="</template>"</script></template>' +
      "<script>addEventListener('pointerdown', start, { once: true })</script></body></html>";

    const twin = withoutScripts(html);

    expect(twin.html).toBe(
      `<!DOCTYPE html><html lang="en">${HEAD}</head>` +
        `<body>${HERO}<a href="#newsletter" >Join the Movement</a></main></body></html>`,
    );
    expect(twin.removed).toBe(5);
  });

  it("copies the whole site and rewrites every HTML file in it, leaving the original alone", () => {
    const root = mkdtempSync(path.join(tmpdir(), "twin-"));
    try {
      const site = path.join(root, "public");
      mkdirSync(path.join(site, "effects", "2026-10-22"), { recursive: true });
      const page = (title: string) =>
        `<html><body><h1>${title}</h1><script src="/app.js"></script></body></html>`;
      writeFileSync(path.join(site, "index.html"), page("Home"));
      writeFileSync(path.join(site, "effects", "2026-10-22", "index.html"), page("An Effect"));
      writeFileSync(path.join(site, "app.js"), "console.log(1)");

      const twin = writeTwin(site, path.join(root, "twin"));

      expect({ htmlFiles: twin.htmlFiles, removed: twin.removed }).toEqual({ htmlFiles: 2, removed: 2 });
      expect(readFileSync(path.join(twin.dir, "effects", "2026-10-22", "index.html"), "utf8")).toBe(
        "<html><body><h1>An Effect</h1></body></html>",
      );
      expect(readFileSync(path.join(twin.dir, "app.js"), "utf8")).toBe("console.log(1)");
      expect(readFileSync(path.join(site, "index.html"), "utf8")).toBe(page("Home"));
      twin.remove();
      expect(() => readFileSync(path.join(twin.dir, "index.html"))).toThrow(/ENOENT/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
