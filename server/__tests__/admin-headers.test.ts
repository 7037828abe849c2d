/**
 * The content editor's headers for static hosts: /admin/ replaces the site's policy with its own
 * instead of adding a second one (two policies would both apply, and the stricter would break it).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { hostHeaders } from "../../site-headers/host-headers.ts";
import { isAdminPath } from "../../site-headers/security-headers.ts";

describe("the /admin/ rule in _headers", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "admin-headers-"));
    mkdirSync(path.join(dir, "admin"));
    writeFileSync(path.join(dir, "index.html"), "<!doctype html><script>window.x=1</script>");
    writeFileSync(path.join(dir, "admin", "index.html"), "<!doctype html>");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const block = (file: string, pattern: string) => {
    const found = file.split(/\n(?=\/)/).find((rule) => rule.startsWith(`${pattern}\n`));
    if (!found) throw new Error(`no rule for ${pattern} in:\n${file}`);
    return found
      .split("\n")
      .slice(1)
      .map((line) => line.trim());
  };

  it("drops the site's policy and sets the editor's, marked noindex", () => {
    const file = hostHeaders(dir, ["https://project.supabase.co"]);
    const admin = block(file, "/admin/*");
    expect(admin[0]).toBe("! Content-Security-Policy");
    const policy = admin.find((line) => line.startsWith("Content-Security-Policy: "));
    expect(policy).toContain("script-src 'self' 'unsafe-eval'");
    expect(policy).toContain("connect-src 'self' https://api.github.com;");
    expect(admin).toContain("X-Robots-Tag: noindex");
    // The rest of the site keeps its strict policy; headers both rules share are not repeated.
    const site = block(file, "/*").find((line) => line.startsWith("Content-Security-Policy: "));
    // The site allows WebAssembly for its search ('wasm-unsafe-eval'), never `eval` itself.
    expect(site).not.toContain("'unsafe-eval'");
    expect(admin.some((line) => line.startsWith("X-Frame-Options"))).toBe(false);
  });

  it("knows the editor's paths and nothing else", () => {
    expect(["/admin", "/admin/", "/admin/config.yml"].every(isAdminPath)).toBe(true);
    expect(["/", "/administrator/", "/effects/admin/"].some(isAdminPath)).toBe(false);
  });
});
