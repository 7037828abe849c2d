/**
 * The `_headers` file the build writes for static hosts, checked on the real build (the tests'
 * 22 published Effects): within Cloudflare Pages' documented limits (100 rules, 2,000 characters a
 * line, https://developers.cloudflare.com/pages/configuration/headers/), which a policy that grew
 * with every page would break a few weeks into daily Effects.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { TEST_SITE_DIR } from "../test/support/stack";
import { sitePaths } from "../site-headers/security-headers";

const headers = readFileSync(path.join(TEST_SITE_DIR, "_headers"), "utf8");

describe("the static hosts' _headers", () => {
  it("keeps every line under 2,000 characters and at most 100 rules", () => {
    const lines = headers.split("\n");
    expect(lines.filter((line) => line.length > 2_000)).toEqual([]);
    expect(lines.filter((line) => line.startsWith("/")).length).toBeLessThanOrEqual(100);
  });

  it("allows a few inline scripts whatever the number of pages", () => {
    const pages = sitePaths(TEST_SITE_DIR).filter((urlPath) => urlPath.endsWith(".html"));
    expect(pages.length).toBeGreaterThan(20);
    const scriptSrc = headers.match(/script-src [^;]*/)?.[0] ?? "";
    // The script starter, the signup forms' record of where a visit began, the chunk map and the
    // build's hash, the same on every page, and the 404 page's log of the attempted path.
    expect(scriptSrc.match(/'sha256-/g)).toHaveLength(5);
  });

  it("lets the archive's search run its WebAssembly from the site itself, and nothing else be evaluated", () => {
    const scriptSrc = headers.match(/script-src [^;]*/)?.[0].split(" ") ?? [];
    expect(scriptSrc).toContain("'self'");
    expect(scriptSrc).toContain("'wasm-unsafe-eval'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(sitePaths(TEST_SITE_DIR)).toEqual(
      expect.arrayContaining([
        "/pagefind/pagefind.js",
        "/pagefind/pagefind-worker.js",
        "/pagefind/wasm.en.pagefind",
      ]),
    );
  });
});
