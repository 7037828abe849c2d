import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildReason } from "../site-build.ts";

describe("whether npm start rebuilds the site", () => {
  let root: string;
  const write = (file: string, secondsAgo: number) => {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, "x");
    const at = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(full, at, at);
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "site-build-"));
    write("src/pages/index.tsx", 300);
    write("content/brand.yaml", 300);
    write("gatsby-config.ts", 300);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("builds when there is no build yet", () => {
    expect(buildReason(root)).toBe("public/index.html is missing");
  });

  it("does not build when nothing changed since the last build", () => {
    write("public/index.html", 100);
    expect(buildReason(root)).toBeNull();
  });

  it.each([
    "content/brand.yaml",
    "src/components/hero.tsx",
    "tailwind.config.js",
    "postcss.config.js",
    "package-lock.json",
  ])("builds when %s changed since the last build", (file) => {
    write("public/index.html", 100);
    write(file, 10);
    expect(buildReason(root)).toBe(`${file} changed since the last build`);
  });

  it("ignores tests", () => {
    write("public/index.html", 100);
    write("src/pages/__tests__/index.test.tsx", 10);
    expect(buildReason(root)).toBeNull();
  });
});
