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
  const env = { EFFECTS_TODAY: "2026-11-21" };
  // What the last build wrote down about the Effects it published (gatsby-node.ts).
  const published = (today: string, effectsDir = path.join(root, "content", "effects")) => {
    mkdirSync(path.join(root, ".cache"), { recursive: true });
    writeFileSync(
      path.join(root, ".cache", "effects-publication.json"),
      JSON.stringify({ today, effectsDir }),
    );
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "site-build-"));
    write("src/pages/index.tsx", 300);
    write("content/brand.yaml", 300);
    write("gatsby-config.ts", 300);
    published("2026-11-21");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("builds when there is no build yet", () => {
    expect(buildReason(root, undefined, env)).toBe("public/index.html is missing");
  });

  it("does not build when nothing changed since the last build", () => {
    write("public/index.html", 100);
    expect(buildReason(root, undefined, env)).toBeNull();
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
    expect(buildReason(root, undefined, env)).toBe(`${file} changed since the last build`);
  });

  it("builds when the last build published the Effects of another day", () => {
    write("public/index.html", 100);
    published("2026-11-20");
    expect(buildReason(root, undefined, env)).toBe(
      "the last build published the Effects up to 2026-11-20, not 2026-11-21",
    );
  });

  it("builds when the last build read another set of Effects, and when it left no record", () => {
    write("public/index.html", 100);
    write("e2e/fixtures/effects/2026-11-01.yaml", 300);
    expect(buildReason(root, undefined, { ...env, EFFECTS_DIR: "e2e/fixtures/effects" })).toBe(
      "the last build published the Effects in content/effects, not e2e/fixtures/effects",
    );
    rmSync(path.join(root, ".cache"), { recursive: true });
    expect(buildReason(root, undefined, env)).toBe("no record of which Effects the last build published");
  });

  it("builds when an Effect outside content/ changed, if the build reads them from there", () => {
    const fixtures = path.join(root, "e2e", "fixtures", "effects");
    published("2026-11-21", fixtures);
    write("public/index.html", 100);
    write("e2e/fixtures/effects/2026-11-01.yaml", 10);
    expect(buildReason(root, undefined, { ...env, EFFECTS_DIR: "e2e/fixtures/effects" })).toBe(
      "e2e/fixtures/effects/2026-11-01.yaml changed since the last build",
    );
  });

  it("ignores tests", () => {
    write("public/index.html", 100);
    write("src/pages/__tests__/index.test.tsx", 10);
    expect(buildReason(root, undefined, env)).toBeNull();
  });
});
