/**
 * Jest's transform for the Node projects (backend, e2e): esbuild, the compiler that bundles our
 * commands and the stack (scripts/run-typescript.cjs), turns each TypeScript or JavaScript file
 * into CommonJS for the Node version running the tests, with tsconfig.json's compiler options as
 * esbuild reads them (strict mode, class fields defined). It keeps `import()` as it is (Jest's
 * vm modules answer it) and checks no types (`npm run check` does). babel-jest did this before,
 * at about 25 ms of CPU a file: on a fresh clone, whose paths Jest's cache did not know, every
 * file of the run was compiled again (see docs/testing.md). Unlike babel-jest it does not hoist
 * `jest.mock()` above the imports, so a file that calls it is refused rather than given the real
 * module.
 */
const { createHash } = require("node:crypto");
const { readFileSync } = require("node:fs");
const path = require("node:path");
const esbuild = require("esbuild");

const ROOT = path.resolve(__dirname, "../../..");
const { compilerOptions } = JSON.parse(readFileSync(path.join(ROOT, "tsconfig.json"), "utf8"));

const OPTIONS = {
  format: "cjs",
  // With "node", esbuild names the exports where Node (and Jest, for `import()`) looks for them.
  platform: "node",
  target: `node${process.versions.node}`,
  sourcemap: true,
  // esbuild reads what changes the code's meaning (`strict`: "use strict" in every file; the
  // target's defined class fields) and leaves the rest (types, paths), as tsx does.
  tsconfigRaw: { compilerOptions },
};

// What jest.config.js hands it: "^.+\\.[jt]sx?$".
const LOADERS = { ".ts": "ts", ".tsx": "tsx", ".js": "js", ".jsx": "jsx" };

/** What a file's compiled form depends on besides its text: this file, esbuild, Node, tsconfig. */
const SALT = [readFileSync(__filename, "utf8"), esbuild.version, JSON.stringify(OPTIONS)].join("\0");

module.exports = {
  // Jest instruments the compiled code itself for --coverage (this transform cannot): a file's
  // instrumented and plain forms are cached apart.
  getCacheKey(source, file, { instrument }) {
    return createHash("sha256")
      .update(SALT)
      .update(instrument ? "\0instrumented\0" : "\0")
      .update(file)
      .update("\0")
      .update(source)
      .digest("hex");
  },
  process(source, file) {
    const loader = LOADERS[path.extname(file)];
    if (!loader) throw new Error(`No TypeScript transform for ${file}`);
    if (/\bjest\.mock\(\s*["'`]/.test(source))
      throw new Error(`${file}: jest.mock() is not hoisted by this transform; pass the fake in instead`);
    const { code, map, warnings } = esbuild.transformSync(source, { ...OPTIONS, loader, sourcefile: file });
    // A warning is code that would run otherwise than written (`import.meta` in CommonJS is {}).
    if (warnings.length > 0) throw new Error(`${file}: ${warnings.map((w) => w.text).join("; ")}`);
    return { code, map };
  },
};
