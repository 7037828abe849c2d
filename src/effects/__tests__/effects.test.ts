import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { effectsDir, loadEffects, publicationDay, publishedEffects } from "../effects";

const GOOD = `title: Show up
summary: Start before you feel ready.
body: |
  Readiness *follows* action. [Listen](https://example.com/show) or [read more](/effects/).

  - one
  - two
`;

describe("reading the Effects of the Day", () => {
  let dir: string;
  const write = (name: string, text: string) => writeFileSync(path.join(dir, name), text);
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "effects-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const problemsFor = () => loadEffects(dir).problems;
  const shown = (name: string) => path.relative(process.cwd(), path.join(dir, name));

  it("reads each file's fields and takes the date from its name, oldest first", () => {
    write("2026-11-21.yaml", GOOD);
    write("2026-11-20.yaml", GOOD.replace("Show up", "Earlier"));
    const { effects, problems } = loadEffects(dir);
    expect(problems).toEqual([]);
    expect(effects.map((effect) => [effect.date, effect.title])).toEqual([
      ["2026-11-20", "Earlier"],
      ["2026-11-21", "Show up"],
    ]);
    expect(effects[1].summary).toBe("Start before you feel ready.");
    expect(effects[1].body).toContain("Readiness *follows* action.");
  });

  it.each(["title", "summary", "body"])("stops at a missing %s, naming the file and the field", (field) => {
    write(
      "2026-11-21.yaml",
      GOOD.split("\n")
        .filter((line) => !line.startsWith(`${field}:`))
        .join("\n"),
    );
    // A missing body also drops its indented lines, which YAML then reads as part of the summary.
    expect(problemsFor().join("\n")).toContain(`${shown("2026-11-21.yaml")}: missing field "${field}"`);
  });

  it("stops at an empty field and at a field nobody reads", () => {
    write("2026-11-21.yaml", `${GOOD.replace("title: Show up", 'title: ""')}author: Me\n`);
    const [problem] = problemsFor();
    expect(problem).toContain(`${shown("2026-11-21.yaml")}: "title" must be a non-empty text`);
    expect(problem).toContain('unknown field "author"');
  });

  it.each(["2026-13-01", "2026-02-30", "21-11-2026", "2026-11-21-morning", "latest"])(
    "stops at a file named %s.yaml, which is not a day",
    (name) => {
      write(`${name}.yaml`, GOOD);
      expect(problemsFor()).toEqual([
        `${shown(`${name}.yaml`)}: the file name must be the Effect's date as YYYY-MM-DD.yaml, a real day (got "${name}")`,
      ]);
    },
  );

  it("stops at two Effects on one day, naming both files", () => {
    write("2026-11-21.yaml", GOOD);
    write("2026-11-21.yml", GOOD);
    expect(problemsFor()).toEqual([
      `${shown("2026-11-21.yml")}: two Effects on 2026-11-21 (the other is ${shown("2026-11-21.yaml")}); keep one per day`,
    ]);
  });

  it.each([
    ["a block of HTML", "<div>Hello</div>"],
    ["an inline tag", "Hello <b>there</b>"],
    ["a script", '<script>alert("hi")</script>'],
    ["a comment", "<!-- note -->"],
  ])("stops at raw HTML in the body (%s), naming the field", (_what, html) => {
    write("2026-11-21.yaml", `title: T\nsummary: S\nbody: |\n  Text.\n\n  ${html}\n`);
    const [problem] = problemsFor();
    expect(problem).toMatch(new RegExp(`^${shown("2026-11-21.yaml")}: "body": raw HTML is not allowed`));
  });

  it("stops at a link that is not a web or mail address or a page of the site", () => {
    write(
      "2026-11-21.yaml",
      "title: T\nsummary: S\nbody: '[click](javascript:alert(1)) and [there](ftp://x.example/)'\n",
    );
    const [problem] = problemsFor();
    expect(problem).toContain('"body": link "javascript:alert(1)" must start with https://');
    expect(problem).toContain('"body": link "ftp://x.example/" must start with https://');
  });

  it.each([
    ["a remote image", "![pixel](https://tracker.example/p.gif)", "https://tracker.example/p.gif"],
    ["an image of the site", "See ![the hero](/static/hero.jpg) here.", "/static/hero.jpg"],
  ])("stops at an image in the body (%s): in a mail it is a tracking pixel", (_what, body, src) => {
    write("2026-11-21.yaml", `title: T\nsummary: S\nbody: '${body}'\n`);
    const [problem] = problemsFor();
    expect(problem).toContain(`"body": images are not allowed in an Effect (found "${src}")`);
  });

  it("stops at anything else in the folder and at YAML that does not parse", () => {
    write("notes.txt", "hello");
    write("2026-11-22.yaml", "title: [unclosed\n");
    const problems = problemsFor();
    expect(problems[0]).toContain(`${shown("2026-11-22.yaml")}: not valid YAML`);
    expect(problems[1]).toBe(
      `${shown("notes.txt")}: only Effects belong here, one file per day named YYYY-MM-DD.yaml`,
    );
  });

  it("reports every broken file at once, not only the first", () => {
    write("2026-11-20.yaml", "title: T\n");
    write("2026-11-21.yaml", GOOD);
    write("2026-11-32.yaml", GOOD);
    const { effects, problems } = loadEffects(dir);
    expect(problems).toHaveLength(2);
    expect(effects.map((effect) => effect.date)).toEqual(["2026-11-21"]);
  });

  it("has nothing to publish, and nothing wrong, without the folder", () => {
    expect(loadEffects(path.join(dir, "none"))).toEqual({ effects: [], problems: [] });
  });

  it("accepts the sample Effects shipped in content/effects", () => {
    const shipped = effectsDir({}, path.resolve(__dirname, "../../.."));
    const { effects, problems } = loadEffects(shipped);
    expect(problems).toEqual([]);
    expect(effects).toHaveLength(readdirSync(shipped).filter((name) => name.endsWith(".yaml")).length);
  });
});

describe("which Effects a build publishes", () => {
  const effect = (date: string) => ({ date, file: `${date}.yaml`, title: date, summary: "s", body: "b" });
  const all = ["2026-11-20", "2026-11-21", "2026-11-22"].map(effect);

  it("publishes the Effects dated up to the build's day, newest first, and keeps later ones back", () => {
    expect(publishedEffects(all, "2026-11-21").map((e) => e.date)).toEqual(["2026-11-21", "2026-11-20"]);
    expect(publishedEffects(all, "2026-11-19")).toEqual([]);
    expect(publishedEffects(all, "2027-01-01")).toHaveLength(3);
  });

  it("takes the build's day in the brand's time zone, not the machine's", () => {
    // 03:30 UTC on the 22nd is still the evening of the 21st in New York, already the 22nd in Paris.
    const now = new Date("2026-11-22T03:30:00Z");
    expect(publicationDay("America/New_York", {}, now)).toBe("2026-11-21");
    expect(publicationDay("Europe/Paris", {}, now)).toBe("2026-11-22");
    expect(publicationDay("Pacific/Kiritimati", {}, new Date("2026-11-21T11:00:00Z"))).toBe("2026-11-22");
  });

  it("lets EFFECTS_TODAY set the build's day for previews and tests", () => {
    const now = new Date("2026-11-22T12:00:00Z");
    expect(publicationDay("America/New_York", { EFFECTS_TODAY: "2026-12-25" }, now)).toBe("2026-12-25");
    expect(() => publicationDay("UTC", { EFFECTS_TODAY: "tomorrow" }, now)).toThrow(
      "EFFECTS_TODAY must be a day written YYYY-MM-DD, e.g. 2026-11-21",
    );
    expect(() => publicationDay("UTC", { EFFECTS_TODAY: "2026-11-31" }, now)).toThrow(/EFFECTS_TODAY/);
  });

  it("reads the Effects from EFFECTS_DIR when set, relative to the project", () => {
    expect(effectsDir({}, "/site")).toBe(path.join("/site", "content", "effects"));
    expect(effectsDir({ EFFECTS_DIR: "e2e/fixtures/effects" }, "/site")).toBe("/site/e2e/fixtures/effects");
  });
});

// Keeps the temp-folder helper honest: a nested folder is not an Effect either.
it("refuses a folder inside content/effects", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "effects-"));
  try {
    mkdirSync(path.join(dir, "2026"));
    expect(loadEffects(dir).problems[0]).toContain("only Effects belong here");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("the build", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "effects-build-"));
    jest.resetModules();
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    delete process.env.EFFECTS_DIR;
    delete process.env.EFFECTS_TODAY;
  });

  /**
   * The build as Gatsby runs it: every file in EFFECTS_DIR goes through onCreateNode as the File node
   * gatsby-source-filesystem makes of it, and so does each node that makes (the EffectFile, then its
   * Effect); then createPages queries the Effect nodes (the query stands in for Gatsby's GraphQL).
   */
  async function createPages() {
    const { createPages: create, onCreateNode } = await import("../../../gatsby-node");
    const { EFFECTS_SOURCE } = await import("../effects");
    const reporter = { panicOnBuild: jest.fn(), info: jest.fn() };
    const nodes: Record<string, unknown>[] = [];
    const getNode = (id: string) => nodes.find((node) => node.id === id);
    const createNode = async (node: Record<string, unknown>) => {
      nodes.push(node);
      await onCreateNode!(
        {
          node,
          getNode,
          reporter,
          actions: { createNode, createParentChildLink: () => {} },
          loadNodeContent: async () => readFileSync(String(node.absolutePath), "utf8"),
          createNodeId: (key: string) => key,
          createContentDigest: (value: unknown) => JSON.stringify(value),
        } as never,
        {} as never,
        () => undefined,
      );
    };
    const source = process.env.EFFECTS_DIR ?? "";
    for (const relativePath of readdirSync(source, { recursive: true, encoding: "utf8" })) {
      const absolutePath = path.join(source, relativePath);
      if (statSync(absolutePath).isDirectory()) continue;
      await createNode({
        id: `file ${relativePath}`,
        internal: { type: "File" },
        sourceInstanceName: EFFECTS_SOURCE,
        relativePath,
        absolutePath,
        name: path.parse(relativePath).name,
        extension: path.extname(relativePath).slice(1),
      });
    }
    const dates = nodes
      .filter((node) => (node.internal as { type: string }).type === "Effect")
      .map((node) => ({ date: String(node.date) }))
      .sort((a, b) => b.date.localeCompare(a.date));
    const graphql = async () => ({
      data: { brand: { timeZone: "America/New_York" }, allEffect: { nodes: dates } },
    });
    const actions = { createPage: jest.fn() };
    await create!({ actions, reporter, graphql } as never, {} as never, () => undefined);
    const paths = actions.createPage.mock.calls.map(([page]) => page.path as string);
    // Every problem the build stops at, whichever node it was found on.
    const problems = reporter.panicOnBuild.mock.calls.map(([message]) => String(message)).join("\n");
    // The signup's result pages are created on every build; these tests are about the Effects.
    return { reporter, problems, paths: paths.filter((pagePath) => pagePath.startsWith("/effects/")) };
  }

  it("stops with the file and the field when an Effect is broken", async () => {
    writeFileSync(path.join(dir, "2026-11-21.yaml"), "title: T\nsummary: S\nbody: Hello <em>there</em>\n");
    writeFileSync(path.join(dir, "2026-11-22.yaml"), "title: T\nbody: B\n");
    process.env.EFFECTS_DIR = dir;
    process.env.EFFECTS_TODAY = "2026-11-22";
    const { problems, paths } = await createPages();
    const shown = (name: string) => path.relative(process.cwd(), path.join(dir, name));
    expect(problems).toContain(`${shown("2026-11-21.yaml")}: "body": raw HTML is not allowed`);
    expect(problems).toContain(`${shown("2026-11-22.yaml")}: missing field "summary"`);
    // Gatsby stops the build at the first panic; a broken Effect never becomes a page meanwhile.
    expect(paths).toEqual(["/effects/"]);
  });

  it("creates the pages of the Effects whose day has come, and the archive", async () => {
    for (const day of ["2026-11-20", "2026-11-21", "2026-11-22"])
      writeFileSync(path.join(dir, `${day}.yaml`), GOOD);
    process.env.EFFECTS_DIR = dir;
    process.env.EFFECTS_TODAY = "2026-11-21";
    const { reporter, paths } = await createPages();
    expect(reporter.panicOnBuild).not.toHaveBeenCalled();
    expect(paths).toEqual(["/effects/2026-11-21/", "/effects/2026-11-20/", "/effects/"]);
  });

  it("stops when a file sits in a subfolder or is not YAML, naming it", async () => {
    writeFileSync(path.join(dir, "2026-11-20.yaml"), GOOD);
    mkdirSync(path.join(dir, "old"));
    writeFileSync(path.join(dir, "old", "2026-11-19.yaml"), GOOD);
    writeFileSync(path.join(dir, "notes.txt"), "ideas");
    process.env.EFFECTS_DIR = dir;
    process.env.EFFECTS_TODAY = "2026-11-21";
    const { problems, paths } = await createPages();
    const shown = (name: string) => path.relative(process.cwd(), path.join(dir, name));
    expect(problems).toContain(`${shown("old/2026-11-19.yaml")}: only Effects belong here`);
    expect(problems).toContain(`${shown("notes.txt")}: only Effects belong here`);
    expect(paths).toEqual(["/effects/2026-11-20/", "/effects/"]);
  });

  it("stops at two Effects on one day, naming both files", async () => {
    writeFileSync(path.join(dir, "2026-11-20.yaml"), GOOD);
    writeFileSync(path.join(dir, "2026-11-20.yml"), GOOD);
    process.env.EFFECTS_DIR = dir;
    process.env.EFFECTS_TODAY = "2026-11-21";
    const { problems, paths } = await createPages();
    const shown = (name: string) => path.relative(process.cwd(), path.join(dir, name));
    expect(problems).toMatch(/two Effects on 2026-11-20 \(the other is .*\); keep one per day/);
    expect(problems).toContain(shown("2026-11-20.yaml"));
    expect(problems).toContain(shown("2026-11-20.yml"));
    expect(paths).toEqual(["/effects/2026-11-20/", "/effects/"]);
  });

  it("stops when EFFECTS_TODAY is not a day", async () => {
    process.env.EFFECTS_DIR = dir;
    process.env.EFFECTS_TODAY = "2026-11";
    const { reporter } = await createPages();
    expect(reporter.panicOnBuild).toHaveBeenCalledWith(
      expect.stringContaining("EFFECTS_TODAY must be a day"),
    );
  });
});
