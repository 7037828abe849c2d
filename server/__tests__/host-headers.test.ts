/**
 * `_headers` at the size that matters: a site of 3,650 Effects, ten years of daily ones, laid out as
 * `gatsby build` lays it out (bench/build-year.ts builds such a site for real, in over a minute).
 * Cloudflare Pages reads 100 rules and lines of 2,000 characters and drops the rest with only a
 * warning, so the file must fit whatever the number of Effects, give every file the Cache-Control
 * the local stack gives it, and stop the build when it cannot fit.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cacheControlFor, IMMUTABLE, REVALIDATE } from "../../site-headers/cache-control.ts";
import { hostHeaders, hostPatternRegExp } from "../../site-headers/host-headers.ts";
import { sitePaths } from "../../site-headers/security-headers.ts";
import { ARCHIVE_PAGE_SIZE } from "../../src/effects/publication.ts";
import { DATA_FOLDERS } from "../../test/support/data-folders.ts";

const ORIGINS = ["https://project.supabase.co"];

/** The content-hashed chunks and styles of a 3,650-Effect build, named as Gatsby named them. */
const CHUNKS = [
  "0af9b167-aeeef0c779a9ae7cea34.js",
  "68-176a7c672052f80c4413.js",
  "app-149bc737af6f4d8769fb.js",
  "component---src-pages-404-tsx-3835c5e9a93f9539b226.js",
  "component---src-pages-index-tsx-28c1c73e76c8fd73bf6f.js",
  "component---src-templates-effect-archive-tsx-747bf95340bba432feb1.js",
  "component---src-templates-effect-tsx-e74ea03b599cd162d2f1.js",
  "component---src-templates-signup-result-tsx-b31a5eea594fc636d91c.js",
  "framework-cc2f7923fed6617190a1.js",
  "notices-aed4b91f45069973062a.js",
  "styles.9cbf954764ab5ddbe586.css",
  "subscription-link-9ab65516977b166e333a.js",
  "supabase-c09de1823097cad6f867.js",
  "webpack-runtime-df74c60ed8224909406f.js",
];

/** The files beside the pages that do not depend on the number of Effects. */
const FIXED_FILES = [
  ...CHUNKS,
  "framework-cc2f7923fed6617190a1.js.LICENSE.txt",
  "chunk-map.json",
  "effect-search-worker.js",
  "favicon-32x32.png",
  "manifest.webmanifest",
  "robots.txt",
  "sitemap-0.xml",
  "sitemap-index.xml",
  "social-card.png",
  "_gatsby/slices/_gatsby-scripts-1.html",
  ...[48, 72, 96, 144, 192, 256, 384, 512].map((size) => `icons/icon-${size}x${size}.png`),
  "newsletter/latest.json",
  "newsletter/sender.json",
  "static/anton-basic-400-normal-7b5afb704d8721cedcf9959ce81b5f1b.woff2",
  "static/anton-latin-400-normal-3d62441680a12bbe4cdee48b35ba4c6e.woff2",
  ...["037f0/hero.webp", "42dd9/hero.avif", "8e170/hero.jpg"].map(
    (name) => `static/ea6b08c3eef143e2d7197e67fe6b37b6/${name}`,
  ),
  // The CMS: its own chunks, unhashed, and two WebAssembly files named by a hex hash.
  ...Array.from({ length: 94 }, (_, index) => `admin/${(index * 4099 + 7) % 9973}.decap-cms.js`),
  "admin/dd5d52671a5763720504.wasm",
  "admin/f728dc876b39e5273411.wasm",
  "admin/config.yml",
  "admin/decap-cms.js",
  "admin/editor-setup.js",
  "admin/editor.css",
  "admin/sign-in.js",
  "admin/anton-latin-400-normal.woff2",
  "pagefind/pagefind.js",
  "pagefind/pagefind-worker.js",
  "pagefind/pagefind-entry.json",
  "pagefind/pagefind-ui.js",
  "pagefind/pagefind-ui.css",
  "pagefind/pagefind.en_fc5d58d523.pf_meta",
  "pagefind/wasm.en.pagefind",
  "page-data/app-data.json",
  ...Array.from({ length: 11 }, (_, index) => `~partytown/partytown-${index}.js`),
];

const PAGES = [
  "",
  "404/",
  "admin/",
  "admin/sign-in/",
  "admin/signed-in/",
  ...["check-address", "slow-down", "try-again", "welcome"].map((page) => `newsletter/${page}/`),
];

/** The inline scripts Gatsby writes into every page (the compilation's hash, the chunk map, the loader). */
const PAGE_SCRIPTS = [
  'window.___webpackCompilationHash="40d048ead92e0b94b489";',
  'window.___chunkMapping="{}";',
  "(function () { /* the script loader */ })();",
];

const addDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const hex = (seed: string, length: number) => createHash("sha1").update(seed).digest("hex").slice(0, length);

/**
 * A built site of `effects` Effects: each one's page, card, mail edition, page data and search
 * fragment; the archive's pages of ARCHIVE_PAGE_SIZE; the feeds; Pagefind's index in parts (one
 * per 300 Effects or so, as it split the bench's); and the files that do not grow.
 */
function writeBuiltSite(dir: string, effects: number, extra: Record<string, string> = {}): void {
  const page = (scripts = PAGE_SCRIPTS) =>
    `<!doctype html><html><body>${scripts.map((script) => `<script>${script}</script>`).join("")}</body></html>`;
  const files: Record<string, string> = {};
  for (const name of FIXED_FILES) files[name] = "x";
  for (const urlPath of PAGES) {
    files[`${urlPath}index.html`] = page();
    files[`page-data/${urlPath || "index/"}page-data.json`] = "{}";
  }
  files["404.html"] = page([...PAGE_SCRIPTS, 'console.error("404 Error");']);
  for (let index = 0; index < effects; index++) {
    const day = addDays("2016-11-27", index);
    files[`effects/${day}/index.html`] = page();
    files[`effects/${day}/card.png`] = "png";
    files[`effects/${day}/mail.json`] = "{}";
    files[`page-data/effects/${day}/page-data.json`] = "{}";
    files[`pagefind/fragment/en_${hex(day, 7)}.pf_fragment`] = "fragment";
  }
  const archivePages = Math.ceil(effects / ARCHIVE_PAGE_SIZE);
  files["effects/index.html"] = page();
  files["page-data/effects/page-data.json"] = "{}";
  for (let number = 2; number <= archivePages; number++) {
    files[`effects/page/${number}/index.html`] = page();
    files[`page-data/effects/page/${number}/page-data.json`] = "{}";
  }
  files["effects/feed.json"] = "{}";
  files["effects/rss.xml"] = "<rss/>";
  for (let part = 0; part < Math.ceil(effects / 300); part++)
    files[`pagefind/index/en_${hex(String(part), 7)}.pf_index`] = "index";
  for (const [name, text] of Object.entries({ ...files, ...extra })) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

/** The rules of a `_headers` file, in order: the pattern, and the Cache-Control it sets or detaches. */
function cacheRules(file: string) {
  return file
    .split(/\n(?=[^\s#])/)
    .slice(1)
    .map((block) => {
      const [pattern, ...lines] = block.trim().split("\n");
      const values = lines.map((line) => line.trim());
      return {
        pattern,
        matches: hostPatternRegExp(pattern),
        detaches: values.includes("! Cache-Control"),
        sets: values.filter((line) => line.startsWith("Cache-Control: ")).map((line) => line.slice(15)),
      };
    });
}

/**
 * The Cache-Control a host sends for `urlPath` from `_headers`: every matching rule in order, the
 * values of one header joined, and the host's own revalidating default (as `no-cache`) when no
 * rule sets one.
 */
function hostCacheControl(rules: ReturnType<typeof cacheRules>, urlPath: string): string {
  let values: string[] = [];
  for (const rule of rules.filter((each) => each.matches.test(urlPath)))
    values = [...(rule.detaches ? [] : values), ...rule.sets];
  return values.join(", ") || REVALIDATE;
}

const ruleCount = (file: string) => file.split("\n").filter((line) => /^[^\s#]/.test(line)).length;

describe("_headers on a site of 3,650 Effects", () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    // In memory where it can: its 18,000 files took 4 to 16 s on this VM's ext4, 0.5 s in tmpfs.
    dir = mkdtempSync(path.join(DATA_FOLDERS, "host-headers-"));
    writeBuiltSite(dir, 3_650);
    file = hostHeaders(dir, ORIGINS);
  });
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("stays within Cloudflare Pages' 100 rules and 2,000 characters a line", () => {
    expect(sitePaths(dir).length).toBeGreaterThan(18_000);
    expect(ruleCount(file)).toBeLessThanOrEqual(100);
    expect(file.split("\n").filter((line) => line.length > 2_000)).toEqual([]);
  });

  it("needs no more rules than a site of 22 Effects", () => {
    const small = mkdtempSync(path.join(DATA_FOLDERS, "host-headers-small-"));
    try {
      writeBuiltSite(small, 22);
      expect(ruleCount(file)).toBe(ruleCount(hostHeaders(small, ORIGINS)));
    } finally {
      rmSync(small, { recursive: true, force: true });
    }
  });

  it("gives every file the Cache-Control the local stack gives it", () => {
    const rules = cacheRules(file);
    const paths = sitePaths(dir);
    const differ = paths.filter((urlPath) => hostCacheControl(rules, urlPath) !== cacheControlFor(urlPath));
    expect(differ).toEqual([]);
    // A file of each kind, with the cache it should have.
    for (const [urlPath, cache] of [
      ["/app-149bc737af6f4d8769fb.js", IMMUTABLE],
      ["/styles.9cbf954764ab5ddbe586.css", IMMUTABLE],
      ["/component---src-templates-effect-tsx-e74ea03b599cd162d2f1.js", IMMUTABLE],
      ["/68-176a7c672052f80c4413.js", IMMUTABLE],
      ["/static/ea6b08c3eef143e2d7197e67fe6b37b6/8e170/hero.jpg", IMMUTABLE],
      ["/pagefind/pagefind.en_fc5d58d523.pf_meta", IMMUTABLE],
      [`/pagefind/fragment/en_${hex("2026-11-24", 7)}.pf_fragment`, IMMUTABLE],
      ["/framework-cc2f7923fed6617190a1.js.LICENSE.txt", REVALIDATE],
      ["/effect-search-worker.js", REVALIDATE],
      ["/effects/2026-11-24/index.html", REVALIDATE],
      ["/effects/2026-11-24/card.png", REVALIDATE],
      ["/effects/2026-11-24/mail.json", REVALIDATE],
      ["/page-data/effects/2026-11-24/page-data.json", REVALIDATE],
      ["/effects/page/183/index.html", REVALIDATE],
      ["/effects/rss.xml", REVALIDATE],
      ["/pagefind/pagefind.js", REVALIDATE],
      ["/admin/7.decap-cms.js", REVALIDATE],
      ["/admin/dd5d52671a5763720504.wasm", REVALIDATE],
      ["/~partytown/partytown-0.js", REVALIDATE],
    ]) {
      expect(paths).toContain(urlPath);
      expect({ urlPath, cache: hostCacheControl(rules, urlPath) }).toEqual({ urlPath, cache });
    }
  });
});

describe("_headers' long cache", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(DATA_FOLDERS, "host-headers-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("names a file itself where its pattern would also reach a file that revalidates", () => {
    writeBuiltSite(dir, 3, { "app-shell/worker.js": "x" });
    const file = hostHeaders(dir, ORIGINS);
    const rules = cacheRules(file);
    expect(rules.map((rule) => rule.pattern)).toContain("/app-149bc737af6f4d8769fb.js");
    expect(hostCacheControl(rules, "/app-149bc737af6f4d8769fb.js")).toBe(IMMUTABLE);
    expect(hostCacheControl(rules, "/app-shell/worker.js")).toBe(REVALIDATE);
    expect(hostCacheControl(rules, "/framework-cc2f7923fed6617190a1.js")).toBe(IMMUTABLE);
  });

  it("stops the build, saying why, when the hashed files would need more than 100 rules", () => {
    const chunks = Object.fromEntries(
      Array.from({ length: 100 }, (_, index) => [`${index + 100}-${hex(String(index), 20)}.js`, "x"]),
    );
    writeBuiltSite(dir, 3, chunks);
    expect(() => hostHeaders(dir, ORIGINS)).toThrow(
      /public\/_headers would hold 1\d\d rules, and Cloudflare Pages applies only the first 100: .*IMMUTABLE_FOLDERS/,
    );
  });

  it("stops the build when the pages' policy would make a line over 2,000 characters", () => {
    // Forty pages, each with an inline script of its own: forty hashes in one policy.
    const pages = Object.fromEntries(
      Array.from({ length: 40 }, (_, index) => [
        `own-${index}/index.html`,
        `<!doctype html><script>window.page = ${index};</script>`,
      ]),
    );
    writeBuiltSite(dir, 3, pages);
    expect(() => hostHeaders(dir, ORIGINS)).toThrow(
      /would hold a line of \d{4} characters in the rule for \/\*, and Cloudflare Pages drops a line over 2,000: Content-Security-Policy/,
    );
  });
});

describe("a _headers pattern, as Cloudflare Pages matches it", () => {
  it("reads a splat as any characters, folders included, and a placeholder as one segment", () => {
    expect(hostPatternRegExp("/static/*").test("/static/a/b.png")).toBe(true);
    expect(hostPatternRegExp("/app-*.js").test("/app-shell/worker.js")).toBe(true);
    expect(hostPatternRegExp("/app-*.js").test("/app-1.js.map")).toBe(false);
    expect(hostPatternRegExp("/effects/:day/card.png").test("/effects/2026-11-24/card.png")).toBe(true);
    expect(hostPatternRegExp("/effects/:day/card.png").test("/effects/page/2/card.png")).toBe(false);
    expect(hostPatternRegExp("/styles.*.css").test("/styles-x.css")).toBe(false);
  });
});
