/**
 * scripts/run-typescript.cjs, the way every command of the project starts: a program and its
 * imports run as they would as modules of their own, and a change is never missed.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { typeScript } from "../../test/support/process";

const ROOT = path.resolve(__dirname, "../..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "run-typescript");

const MAIN = `import { helper } from "./lib/helper";
const own = { main: require.main === module, dir: __dirname, file: __filename, notMain: module !== require.main };
console.log(JSON.stringify({ argv: process.argv.slice(1), own, helper: helper() }));
process.exitCode = 3;
`;
const helperSource = (word: string) =>
  `export const helper = () => ({ word: "${word}", main: require.main === module, dir: __dirname, file: __filename, ` +
  `text: "__dirname stays a word" });\n`;

describe("run-typescript", () => {
  let dir: string;
  beforeAll(() => {
    // Its real path: what esbuild and Node name the modules in it by.
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), "run-typescript-")));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    // What the cache kept for the programs here, which are gone now.
    for (const file of readdirSync(CACHE).filter((name) => name.endsWith(".json"))) {
      const manifest = JSON.parse(readFileSync(path.join(CACHE, file), "utf8"));
      if (!path.resolve(ROOT, manifest.entry).startsWith(dir)) continue;
      // The manifest, and every bundle made for its program (its name, then its id, then a hash).
      const id = file.replace(/\.json$/, "");
      for (const kept of readdirSync(CACHE))
        if (kept === file || kept.includes(`-${id}-`)) rmSync(path.join(CACHE, kept), { force: true });
    }
  });

  /** A program of its own in the temporary folder: `files` by their path in it. */
  const program = (name: string, files: Record<string, string>) => {
    const folder = path.join(dir, name);
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      writeFileSync(path.join(folder, file), content);
    }
    return folder;
  };
  const run = (file: string, ...args: string[]) =>
    spawnSync(process.execPath, typeScript(file, ...args), { cwd: ROOT, encoding: "utf8" });
  /** The bundle the cache holds for `file`. */
  const bundleOf = (file: string) => {
    for (const name of readdirSync(CACHE).filter((entry) => entry.endsWith(".json"))) {
      const manifest = JSON.parse(readFileSync(path.join(CACHE, name), "utf8"));
      if (path.resolve(ROOT, manifest.entry) === file) return path.join(CACHE, manifest.bundle);
    }
    throw new Error(`no bundle for ${file}`);
  };

  it("runs the program with its arguments and exit code, each file with its own names", () => {
    const folder = program("names", { "main.ts": MAIN, "lib/helper.ts": helperSource("one") });
    const main = path.join(folder, "main.ts");
    // The first run bundles, the second reuses the bundle: both the same to the program.
    for (let i = 0; i < 2; i++) {
      const result = run(main, "first", "with space");
      expect(result.stderr).toBe("");
      expect(result.status).toBe(3);
      expect(JSON.parse(result.stdout)).toEqual({
        argv: [main, "first", "with space"],
        own: { main: true, dir: folder, file: main, notMain: false },
        helper: {
          word: "one",
          main: false,
          dir: path.join(folder, "lib"),
          file: path.join(folder, "lib/helper.ts"),
          text: "__dirname stays a word",
        },
      });
    }
  });

  it("runs a program reached through a symbolic link as Node would, as the main module", () => {
    // As deploying-doc.test.ts's checkout, whose scripts/ links to the project's.
    const folder = program("linked", { "main.ts": MAIN, "lib/helper.ts": helperSource("linked") });
    const link = path.join(dir, "link");
    symlinkSync(folder, link);
    const result = run(path.join(link, "main.ts"));
    expect(result.status).toBe(3);
    const { argv, own } = JSON.parse(result.stdout);
    expect(argv).toEqual([path.join(link, "main.ts")]);
    expect(own).toEqual({ main: true, dir: folder, file: path.join(folder, "main.ts"), notMain: false });
  });

  it("reuses the bundle while nothing changed, and sees a change that kept the file's time", () => {
    const folder = program("change", { "main.ts": MAIN, "lib/helper.ts": helperSource("before") });
    const main = path.join(folder, "main.ts");
    expect(JSON.parse(run(main).stdout).helper.word).toBe("before");
    const first = bundleOf(main);
    const made = statSync(first).mtimeMs;
    expect(JSON.parse(run(main).stdout).helper.word).toBe("before");
    expect(bundleOf(main)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(made);

    // Same length, same modification time: only the content tells.
    const helper = path.join(folder, "lib/helper.ts");
    const { atime, mtime } = statSync(helper);
    writeFileSync(helper, helperSource("after!"));
    utimesSync(helper, atime, mtime);
    expect(JSON.parse(run(main).stdout).helper.word).toBe("after!");
    expect(bundleOf(main)).not.toBe(first);
  });

  it("says which import is missing, and runs nothing", () => {
    const folder = program("missing", { "main.ts": MAIN, "lib/helper.ts": helperSource("here") });
    const main = path.join(folder, "main.ts");
    expect(run(main).status).toBe(3);
    rmSync(path.join(folder, "lib"), { recursive: true });
    const result = run(main);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("main.ts could not be bundled");
    expect(result.stderr).toContain(`${main}:1:23: Could not resolve "./lib/helper"`);
  });

  it("sees a new file that takes an import's place", () => {
    const folder = program("shadow", {
      "main.ts": `import { word } from "./word";\nconsole.log(word);\n`,
      "word/index.ts": `export const word = "folder";\n`,
    });
    const main = path.join(folder, "main.ts");
    expect(run(main).stdout).toBe("folder\n");
    // Node and tsx take the file named as the import before the folder of that name.
    writeFileSync(path.join(folder, "word.ts"), `export const word = "file";\n`);
    expect(run(main).stdout).toBe("file\n");
  });

  it("refuses what CommonJS would silently leave empty, saying where", () => {
    const folder = program("meta", { "main.ts": `console.log(import.meta.url);\n` });
    const result = run(path.join(folder, "main.ts"));
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`${path.join(folder, "main.ts")}:1:12: "import.meta" is not available`);
  });

  it("names the TypeScript file and line in an error's stack, bundled or reused", () => {
    const folder = program("throws", {
      "main.ts": `import { fail } from "./fail";\n\nfail("at the top");\n`,
      "fail.ts": `export function fail(why: string): never {\n  throw new Error(why);\n}\n`,
    });
    for (let i = 0; i < 2; i++) {
      const result = run(path.join(folder, "main.ts"));
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("Error: at the top");
      expect(result.stderr).toContain(`at fail (${path.join(folder, "fail.ts")}:2:9)`);
      expect(result.stderr).toContain(`(${path.join(folder, "main.ts")}:3:1)`);
    }
  });

  it("runs programs started together before any bundle exists", async () => {
    const folder = program("together", { "main.ts": MAIN, "lib/helper.ts": helperSource("all") });
    const main = path.join(folder, "main.ts");
    const runs = Array.from({ length: 4 }, (_, i) => {
      const child = spawn(process.execPath, typeScript(main, String(i)), { cwd: ROOT });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      return new Promise<{ code: number | null; out: string }>((resolve) =>
        child.on("close", (code) => resolve({ code, out })),
      );
    });
    const results = await Promise.all(runs);
    results.forEach(({ code, out }, i) => {
      expect(code).toBe(3);
      expect(JSON.parse(out).argv).toEqual([main, String(i)]);
    });
  });

  it("leaves a package imported by its path to Node, as one imported by its name", () => {
    const yaml = require.resolve("js-yaml");
    const folder = program("package", {
      "main.ts":
        `import { load } from ${JSON.stringify(yaml)};\nimport { dump } from "js-yaml";\n` +
        `console.log(JSON.stringify(load(dump({ same: true }))));\n`,
    });
    const main = path.join(folder, "main.ts");
    const result = run(main);
    expect(result.stdout.trim()).toBe('{"same":true}');
    const bundle = readFileSync(bundleOf(main), "utf8");
    expect(bundle).toContain(`require(${JSON.stringify(yaml)})`);
    expect(bundle.length).toBeLessThan(5000);
  });
});
