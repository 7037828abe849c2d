import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../../test/support/eventually.ts";
import { typeScript } from "../../test/support/process.ts";
import { BUILD_LOCK, buildReason, buildSiteIfStale, siteInputs } from "../site-build.ts";

describe("whether npm start rebuilds the site", () => {
  let root: string;
  const write = (file: string, secondsAgo: number, content = "x") => {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
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
  /** A build that finished: its pages, and the record of the files it read (buildSiteIfStale's). */
  const built = (buildEnv: NodeJS.ProcessEnv = env) => {
    write("public/index.html", 100);
    writeFileSync(path.join(root, ".cache", "site-inputs.json"), JSON.stringify(siteInputs(root, buildEnv)));
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "site-build-"));
    write("src/pages/index.tsx", 300);
    write("content/brand.yaml", 300);
    write("content/effects/2026-11-20.yaml", 300, "title: Show up");
    write("gatsby-config.ts", 300);
    published("2026-11-21");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("builds when there is no build yet, or no record of what it read", () => {
    expect(buildReason(root, undefined, env)).toBe("public/index.html is missing");
    write("public/index.html", 100);
    expect(buildReason(root, undefined, env)).toBe("no record of the files the last build read");
  });

  it("does not build when nothing changed since the last build, even a file saved again unchanged", () => {
    built();
    expect(buildReason(root, undefined, env)).toBeNull();
    write("content/brand.yaml", 0);
    expect(buildReason(root, undefined, env)).toBeNull();
  });

  it.each(["content/brand.yaml", "src/pages/index.tsx", "gatsby-config.ts"])(
    "builds when %s changed since the last build",
    (file) => {
      built();
      write(file, 10, "y");
      expect(buildReason(root, undefined, env)).toBe(`${file} changed since the last build`);
    },
  );

  it.each([
    "src/components/hero.tsx",
    "gatsby-ssr.tsx",
    "tailwind.config.js",
    "postcss.config.js",
    "package-lock.json",
    "build/cms-admin.ts",
    "site-headers/security-headers.ts",
    "supabase/functions/_shared/contract/calendar-day.ts",
  ])("builds when %s was added since the last build", (file) => {
    built();
    write(file, 10);
    expect(buildReason(root, undefined, env)).toBe(`${file} was added since the last build`);
  });

  it("builds when an Effect was deleted, renamed, or restored from an older copy, whatever its time", () => {
    built();
    rmSync(path.join(root, "content/effects/2026-11-20.yaml"));
    expect(buildReason(root, undefined, env)).toBe(
      "content/effects/2026-11-20.yaml was deleted since the last build",
    );
    write("content/effects/2026-11-19.yaml", 600, "title: Show up");
    expect(buildReason(root, undefined, env)).toBe(
      "content/effects/2026-11-20.yaml was renamed to content/effects/2026-11-19.yaml since the last build",
    );
    rmSync(path.join(root, "content/effects/2026-11-19.yaml"));
    // An older version put back, with a time before the build's.
    write("content/effects/2026-11-20.yaml", 900, "title: Show up, an older draft");
    expect(buildReason(root, undefined, env)).toBe(
      "content/effects/2026-11-20.yaml changed since the last build",
    );
  });

  it("builds when the last build published the Effects of another day", () => {
    built();
    published("2026-11-20");
    expect(buildReason(root, undefined, env)).toBe(
      "the last build published the Effects up to 2026-11-20, not 2026-11-21",
    );
  });

  it("builds when the last build read another set of Effects, and when it left no record", () => {
    write("e2e/fixtures/effects/2026-11-01.yaml", 300);
    built({ ...env, EFFECTS_DIR: "e2e/fixtures/effects" });
    expect(buildReason(root, undefined, { ...env, EFFECTS_DIR: "e2e/fixtures/effects" })).toBe(
      "the last build published the Effects in content/effects, not e2e/fixtures/effects",
    );
    rmSync(path.join(root, ".cache", "effects-publication.json"));
    expect(buildReason(root, undefined, { ...env, EFFECTS_DIR: "e2e/fixtures/effects" })).toBe(
      "no record of which Effects the last build published",
    );
  });

  it("builds when an Effect outside content/ changed, if the build reads them from there", () => {
    const fixtures = path.join(root, "e2e", "fixtures", "effects");
    published("2026-11-21", fixtures);
    write("e2e/fixtures/effects/2026-11-01.yaml", 300);
    built({ ...env, EFFECTS_DIR: "e2e/fixtures/effects" });
    write("e2e/fixtures/effects/2026-11-01.yaml", 10, "title: Edited");
    expect(buildReason(root, undefined, { ...env, EFFECTS_DIR: "e2e/fixtures/effects" })).toBe(
      "e2e/fixtures/effects/2026-11-01.yaml changed since the last build",
    );
  });

  it("builds when the pages and page-data/app-data.json come from different builds", () => {
    const page = (hash: string) => `<script>window.___webpackCompilationHash="${hash}";</script>`;
    write("public/index.html", 100);
    writeFileSync(path.join(root, "public", "index.html"), page("c4dd9bd0070fe8939a07"));
    write("public/page-data/app-data.json", 100);
    const appData = (hash: string) =>
      writeFileSync(
        path.join(root, "public", "page-data", "app-data.json"),
        JSON.stringify({ webpackCompilationHash: hash }),
      );
    appData("b1581b8a7a4695d5e6d4");
    expect(buildReason(root, undefined, env)).toBe(
      "public/page-data/app-data.json is not from the build that made the pages (every page would reload itself)",
    );
    appData("c4dd9bd0070fe8939a07");
    expect(buildReason(root, undefined, env)).toBe("no record of the files the last build read");
  });

  it("reads the records of another folder's build from that folder's own cache", () => {
    write(".test-site/index.html", 100);
    expect(buildReason(root, path.join(root, ".test-site"), env)).toBe(
      "no record of the files the last build read",
    );
    mkdirSync(path.join(root, ".test-site-cache"));
    writeFileSync(
      path.join(root, ".test-site-cache", "site-inputs.json"),
      JSON.stringify(siteInputs(root, env)),
    );
    expect(buildReason(root, path.join(root, ".test-site"), env)).toBe(
      "no record of which Effects the last build published",
    );
    writeFileSync(
      path.join(root, ".test-site-cache", "effects-publication.json"),
      JSON.stringify({ today: "2026-11-21", effectsDir: path.join(root, "content", "effects") }),
    );
    expect(buildReason(root, path.join(root, ".test-site"), env)).toBeNull();
  });

  it("ignores tests", () => {
    built();
    write("src/pages/__tests__/index.test.tsx", 10);
    expect(buildReason(root, undefined, env)).toBeNull();
  });
});

describe("a build for the browser tests' own folder", () => {
  let root: string;
  const read = (file: string) => readFileSync(path.join(root, file), "utf8");
  /**
   * Gatsby, played by a script in the temporary root: it writes `public/index.html` (or fails, with
   * FAIL set) the way `gatsby build` does, and, as Gatsby's cache does, remembers in `.cache/` which
   * site it built last (`public/started-from` says which one it started from). The real build runs
   * in the browser tests' global setup.
   */
  const standInGatsby = () => {
    const bin = path.join(root, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(bin, "gatsby"),
      [
        "#!/bin/sh",
        "mkdir -p public .cache",
        "cat .cache/built > public/started-from 2>/dev/null || echo nothing > public/started-from",
        'echo "$SITE" > public/index.html',
        '[ -z "$SLOW" ] || sleep "$SLOW"',
        'echo "$SITE" > .cache/built',
        '[ -z "$FAIL" ] || exit 1',
        "",
      ].join("\n"),
    );
    chmodSync(path.join(bin, "gatsby"), 0o755);
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "site-build-dir-"));
    mkdirSync(path.join(root, "public"));
    writeFileSync(path.join(root, "public", "index.html"), "the developer's site");
    mkdirSync(path.join(root, ".cache"));
    writeFileSync(path.join(root, ".cache", "built"), "developer\n");
    mkdirSync(path.join(root, "content"));
    standInGatsby();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const quietly = (work: () => void) => {
    const log = jest.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      work();
    } finally {
      log.mockRestore();
    }
  };

  it("builds there and leaves the developer's public/ as it was", () => {
    quietly(() =>
      buildSiteIfStale(root, path.join(root, ".test-site"), { EFFECTS_TODAY: "2026-11-21", SITE: "tests" }),
    );
    expect(read(".test-site/index.html")).toBe("tests\n");
    expect(read("public/index.html")).toBe("the developer's site");
    expect(existsSync(path.join(root, ".public-aside"))).toBe(false);
    expect(existsSync(path.join(root, ".cache-aside"))).toBe(false);
  });

  it("gives each folder its own Gatsby cache, so neither build starts from the other's", () => {
    const build = (site: string) =>
      quietly(() =>
        buildSiteIfStale(root, path.join(root, ".test-site"), { EFFECTS_TODAY: "2026-11-21", SITE: site }),
      );
    build("tests");
    expect(read(".test-site/started-from")).toBe("nothing\n");
    expect(read(".cache/built")).toBe("developer\n");
    expect(read(".test-site-cache/built")).toBe("tests\n");
    // No record of the Effects published (the stand-in writes none), so it builds again.
    build("tests again");
    expect(read(".test-site/started-from")).toBe("tests\n");
    expect(read(".cache/built")).toBe("developer\n");
  });

  it("puts public/ back when the build fails, and after a build that was killed", () => {
    expect(() =>
      quietly(() =>
        buildSiteIfStale(root, path.join(root, ".test-site"), { EFFECTS_TODAY: "2026-11-21", FAIL: "1" }),
      ),
    ).toThrow("The site did not build");
    expect(read("public/index.html")).toBe("the developer's site");

    expect(read(".cache/built")).toBe("developer\n");

    // Killed mid-build: public/ and .cache/ aside, a half-built site and its cache in their place.
    renameSync(path.join(root, "public"), path.join(root, ".public-aside"));
    renameSync(path.join(root, ".cache"), path.join(root, ".cache-aside"));
    mkdirSync(path.join(root, "public"));
    writeFileSync(path.join(root, "public", "index.html"), "half built");
    mkdirSync(path.join(root, ".cache"));
    writeFileSync(path.join(root, ".cache", "built"), "half built\n");
    quietly(() =>
      buildSiteIfStale(root, path.join(root, ".test-site"), { EFFECTS_TODAY: "2026-11-21", SITE: "tests" }),
    );
    expect(read("public/index.html")).toBe("the developer's site");
    expect(read(".cache/built")).toBe("developer\n");
    expect(read(".test-site/index.html")).toBe("tests\n");
  });

  /** A build of `.test-site/` in a process of its own, as the browser tests' global setup runs it. */
  const buildElsewhere = (env: Record<string, string>) => {
    const runner = path.join(root, "build-elsewhere.ts");
    writeFileSync(
      runner,
      `import { buildSiteIfStale } from ${JSON.stringify(path.resolve(__dirname, "../site-build.ts"))};\n` +
        `buildSiteIfStale(process.argv[2], process.argv[3]);\n`,
    );
    const child = spawn(process.execPath, typeScript(runner, root, path.join(root, ".test-site")), {
      cwd: path.resolve(__dirname, "../.."),
      env: { ...process.env, EFFECTS_TODAY: "2026-11-21", ...env },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    return { pid: child.pid, exited };
  };

  it("builds one at a time: an npm start during the tests' build waits, then builds its own site", async () => {
    const tests = buildElsewhere({ SITE: "tests", SLOW: "2" });
    // Mid-build: the developer's folders are aside, the tests' site is being written into public/.
    await eventually(
      () => existsSync(path.join(root, ".public-aside")) && existsSync(path.join(root, "public")),
      {
        what: "the tests' build to move public/ aside",
        timeoutMs: 20_000,
      },
    );
    const said: string[] = [];
    const log = jest.spyOn(console, "log").mockImplementation((line: string) => void said.push(line));
    try {
      buildSiteIfStale(root, undefined, { EFFECTS_TODAY: "2026-11-21", SITE: "the developer's new site" });
    } finally {
      log.mockRestore();
    }
    expect(await tests.exited).toBe(0);
    expect(read(".test-site/index.html")).toBe("tests\n");
    expect(read("public/index.html")).toBe("the developer's new site\n");
    expect(said[0]).toBe(`Waiting for another build of the site (process ${tests.pid}) to finish.`);
    expect(existsSync(path.join(root, ".public-aside"))).toBe(false);
    expect(existsSync(path.join(root, BUILD_LOCK))).toBe(false);
  }, 30_000);

  it("takes over the lock of a build that was killed", () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    writeFileSync(path.join(root, BUILD_LOCK), String(gone));
    const said: string[] = [];
    const log = jest.spyOn(console, "log").mockImplementation((line: string) => void said.push(line));
    try {
      buildSiteIfStale(root, path.join(root, ".test-site"), { EFFECTS_TODAY: "2026-11-21", SITE: "tests" });
    } finally {
      log.mockRestore();
    }
    expect(said).toEqual([expect.stringMatching(/^Building the site into \.test-site\//)]);
    expect(read(".test-site/index.html")).toBe("tests\n");
    expect(existsSync(path.join(root, BUILD_LOCK))).toBe(false);
  });
});
