/**
 * Webpack's persistent cache with build/build-dependency-reads.ts's plugin, in real webpack
 * compilations, each in a Node process of its own as each `gatsby build` is: the cache is stored and
 * reused, and a change to a file that only the loader loads (found by the resolution the plugin
 * caches) still discards it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { typeScript } from "../../test/support/process";

const ROOT = path.resolve(__dirname, "../..");

/** One compilation: the bundle's text and the modules webpack built instead of taking from the cache. */
const COMPILE = `
import path from "node:path";
import webpack from ${JSON.stringify(require.resolve("webpack"))};
import { BuildDependencyReadsPlugin } from ${JSON.stringify(path.join(ROOT, "build/build-dependency-reads.ts"))};

const dir = process.argv[2];
const compiler = webpack({
  mode: "production",
  context: dir,
  entry: "./entry.js",
  output: { path: path.join(dir, "dist"), filename: "bundle.js", library: { type: "commonjs2" } },
  optimization: { minimize: false },
  module: { rules: [{ test: /\\.txt$/, use: path.join(dir, "loader.js") }] },
  cache: { type: "filesystem", cacheLocation: path.join(dir, "cache", "stage-test"), buildDependencies: {} },
  plugins: [new BuildDependencyReadsPlugin()],
});
if (process.argv[3] === "reads") {
  // A file outside the cache's folder and one inside, each read, rewritten longer, read again.
  const fs = require("node:fs");
  const own = path.join(dir, "cache", "stage-test");
  fs.mkdirSync(own, { recursive: true });
  const sizes = {};
  let left = 2;
  for (const [where, file] of [["outside", path.join(dir, "outside.txt")], ["inside", path.join(own, "inside.pack")]]) {
    fs.writeFileSync(file, "a");
    compiler.intermediateFileSystem.stat(file, (error1, first) => {
      fs.writeFileSync(file, "abc");
      compiler.intermediateFileSystem.stat(file, (error2, second) => {
        sizes[where] = [first.size, second.size];
        if (--left === 0) console.log(JSON.stringify(sizes));
      });
    });
  }
} else compiler.run((error, stats) => {
  if (error || !stats || stats.hasErrors()) throw error ?? new Error(stats?.toString());
  const built = stats.toJson({ modules: true }).modules.filter((m) => m.built).map((m) => m.name);
  compiler.close((closeError) => {
    if (closeError) throw closeError;
    const bundle = require("node:fs").readFileSync(path.join(dir, "dist", "bundle.js"), "utf8");
    console.log(JSON.stringify({ said: /helper-v\\d/.exec(bundle)?.[0], built }));
  });
});
`;

describe("webpack's cache, its build dependencies read through the cached file system", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "build-dependency-reads-"));
    writeFileSync(path.join(dir, "compile.ts"), COMPILE);
    writeFileSync(path.join(dir, "entry.js"), 'module.exports = require("./data.txt");\n');
    writeFileSync(path.join(dir, "data.txt"), "data\n");
    // The loader's own dependency: webpack finds it only by resolving the loader's `require`s.
    writeFileSync(
      path.join(dir, "loader.js"),
      'const { mark } = require("./helper.js");\nmodule.exports = (text) => `module.exports = ${JSON.stringify(mark + ":" + text)};`;\n',
    );
    writeFileSync(path.join(dir, "helper.js"), 'exports.mark = "helper-v1";\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (folder: string, ...args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, typeScript(path.join(dir, "compile.ts"), folder, ...args), {
        cwd: ROOT,
        encoding: "utf8",
      }),
    );
  const compile = (): { said: string; built: string[] } => run(dir);

  it("reads through the cached file system outside the cache's folder, and from the disk inside it", () => {
    // Outside: the size first read, as webpack's own module resolution sees it for its cache's time.
    const folder = mkdtempSync(path.join(dir, "reads-"));
    expect(run(folder, "reads")).toEqual({ outside: [1, 1], inside: [1, 3] });
  });

  it("is reused when nothing changed, and discarded when a file the loader requires changed", () => {
    expect(compile()).toEqual({ said: "helper-v1", built: expect.arrayContaining(["./data.txt"]) });
    // Nothing changed: every module comes from the cache.
    expect(compile()).toEqual({ said: "helper-v1", built: [] });
    writeFileSync(path.join(dir, "helper.js"), 'exports.mark = "helper-v2";\n');
    expect(compile()).toEqual({ said: "helper-v2", built: expect.arrayContaining(["./data.txt"]) });
  });
});
