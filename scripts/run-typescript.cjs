/**
 * Runs one of the project's TypeScript programs: `node scripts/run-typescript.cjs FILE ARGS`.
 * package.json's scripts and the tests' commands start every program this way.
 *
 * The program and the project's files it imports are bundled by esbuild into one CommonJS file
 * (packages stay outside and are required from node_modules as usual), kept in
 * node_modules/.cache/run-typescript/ and required. A later run reuses the bundle while every
 * file that went into it, tsconfig.json and package.json have the same content (compared by
 * hash, not by time: a checkout can keep a file's time and change its content) and no file was
 * added beside one of them; otherwise it bundles again first (about 0.1 to 0.3 s). No loader
 * hook runs: tsx's hooks, which check every module Node loads, took half the CPU of a short
 * command (a `subscribers stats` 1.2 s with tsx and 0.65 s from a bundle). Source maps are
 * on, so a stack names the .ts files.
 *
 * In the bundle each file keeps its own `__dirname` and `__filename`, and
 * `require.main === module` is true in FILE alone, as they were when each file was a module.
 * What a bundle does differently, none of it used here: `require.resolve("./x")` and a
 * `require` of a path computed at run time start from the cache's folder, and a top-level
 * `const` read before its line is `undefined` rather than an error. An esbuild warning (such as
 * `import.meta`, empty in CommonJS) stops the run, as it fails the tests' transform.
 */
"use strict";
const { createHash } = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "run-typescript");
/** Files outside the bundle that change what it is. */
const SETTINGS = ["tsconfig.json", "package.json"];
/** A bundle a newer one replaced is removed once it is this old (a run may still be loading it). */
const STALE_MS = 10 * 60 * 1000;

const hash = (content) => createHash("sha1").update(content).digest("hex");
const readHash = (file) => {
  try {
    return hash(fs.readFileSync(path.join(ROOT, file)));
  } catch {
    return "";
  }
};

/** What bundles the files: a different launcher, esbuild or Node makes a different bundle. */
function builderKey() {
  const esbuild = require("esbuild/package.json").version;
  return hash(`${fs.readFileSync(__filename, "utf8")}\0${esbuild}\0${process.versions.node}`);
}

const manifestPath = (id) => path.join(CACHE, `${id}.json`);

/** The sorted names in `folder` (relative to ROOT), hashed: a file added there may shadow one. */
const listingHash = (folder) => {
  try {
    return hash(fs.readdirSync(path.join(ROOT, folder)).sort().join("\0"));
  } catch {
    return "";
  }
};

/** The bundle for `entry` if the manifest says one was made from the files as they are now. */
function freshBundle(manifestFile, key) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
  } catch {
    return undefined;
  }
  if (manifest.key !== key) return undefined;
  for (const [file, sum] of Object.entries(manifest.inputs)) if (readHash(file) !== sum) return undefined;
  for (const [folder, sum] of Object.entries(manifest.folders))
    if (listingHash(folder) !== sum) return undefined;
  const bundle = path.join(CACHE, manifest.bundle);
  return fs.existsSync(bundle) ? bundle : undefined;
}

/** Whether `file` is a package's, below the project's node_modules (or a test's elsewhere). */
const inPackage = (file) => path.relative(ROOT, file).split(path.sep).includes("node_modules");

const COMPARED_TO_MAIN =
  /\brequire\.main\s*(===|!==|==|!=)\s*module\b|\bmodule\s*(===|!==|==|!=)\s*require\.main\b/g;
const DECLARES_NAMES = /\b(?:const|let|var|function)\s+__(?:dirname|filename)\b/;

/**
 * Gives each project file its own `__dirname` and `__filename` (declared at the start of its
 * first line, or its second after a `#!` line, so lines keep their numbers; esbuild renames each
 * file's copy) and
 * `require.main === module` (and `!==`, either way round) to FILE only; leaves a package's file
 * imported by its path (as `require.resolve` gives it) to Node's require. Records the hash of
 * what it read in `read`: a file changed while the bundle is made must not count as bundled; and
 * in `shifted` which line moved, and how far.
 */
const ownNames = (entry, read, shifted) => ({
  name: "own-names",
  setup(build) {
    build.onResolve({ filter: /^\// }, (args) =>
      inPackage(args.path) ? { path: args.path, external: true } : undefined,
    );
    build.onLoad({ filter: /\.(?:[cm]?[jt]sx?|json)$/ }, (args) => {
      if (inPackage(args.path)) return undefined;
      const bytes = fs.readFileSync(args.path);
      read.set(args.path, hash(bytes));
      const source = bytes.toString("utf8");
      const extension = path.extname(args.path).slice(1).replace(/^[cm]/, "");
      if (extension === "json") return { contents: source, loader: "json" };
      let contents = source.replace(COMPARED_TO_MAIN, (_, left, right) =>
        String((left ?? right).startsWith("=") === (args.path === entry)),
      );
      if (/\b__(?:dirname|filename)\b/.test(contents) && !DECLARES_NAMES.test(contents)) {
        const names = `const __dirname = ${JSON.stringify(path.dirname(args.path))}, __filename = ${JSON.stringify(args.path)};`;
        // After a first line `#!...`, which must stay first.
        const line = contents.startsWith("#!") ? 2 : 1;
        contents = line === 2 ? contents.replace("\n", `\n${names}`) : names + contents;
        shifted.set(args.path, { line, by: names.length });
      }
      return { contents, loader: extension };
    });
  },
});

/** esbuild's errors or warnings, one a line, each with its file, line and column as written. */
const described = (messages, shifted) =>
  messages
    .map(({ location, text }) => {
      if (!location) return text;
      const file = path.resolve(ROOT, location.file);
      const shift = shifted.get(file);
      const column = location.column - (shift?.line === location.line ? shift.by : 0);
      return `${file}:${location.line}:${column}: ${text}`;
    })
    .join("\n");

async function bundle(entry, id, key) {
  const esbuild = require("esbuild");
  const name = `${path.basename(entry).replace(/\.[^.]+$/, "")}-${id}`;
  const inputs = Object.fromEntries(SETTINGS.map((file) => [file, readHash(file)]));
  const read = new Map();
  const shifted = new Map();
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: ROOT,
      // One tsconfig.json for every file, as tsx and the tests' transform use.
      tsconfig: path.join(ROOT, "tsconfig.json"),
      outfile: path.join(CACHE, `${name}.cjs`),
      bundle: true,
      write: false,
      metafile: true,
      platform: "node",
      format: "cjs",
      packages: "external",
      target: `node${process.versions.node.split(".")[0]}`,
      // Classes and functions keep their names (in errors, logs), though two files share one.
      keepNames: true,
      sourcemap: "inline",
      sourcesContent: false,
      logLevel: "silent",
      plugins: [ownNames(entry, read, shifted)],
    });
  } catch (error) {
    throw new Error(error.errors?.length ? described(error.errors, shifted) : String(error));
  } finally {
    // esbuild's service process would otherwise live as long as the program.
    await esbuild.stop();
  }
  // As the tests' transform (test/support/jest/transform-typescript.js): a warning is a mistake,
  // such as `import.meta`, which CommonJS leaves empty.
  if (result.warnings.length > 0) throw new Error(described(result.warnings, shifted));
  const code = result.outputFiles[0].contents;
  const file = `${name}-${hash(code).slice(0, 12)}.cjs`;
  const folders = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const absolute = path.resolve(ROOT, input);
    inputs[input] = read.get(absolute) ?? readHash(input);
    const folder = path.dirname(input);
    folders[folder] ??= listingHash(folder);
  }
  fs.mkdirSync(CACHE, { recursive: true });
  // Written under a name of this process's own and renamed: a run that starts meanwhile sees the
  // old bundle or the whole new one, never half of one.
  const temporary = path.join(CACHE, `.${process.pid}-${file}`);
  fs.writeFileSync(temporary, code);
  fs.renameSync(temporary, path.join(CACHE, file));
  const manifest = { entry, key, inputs, folders, bundle: file };
  fs.writeFileSync(`${temporary}.json`, JSON.stringify(manifest));
  fs.renameSync(`${temporary}.json`, manifestPath(id));
  removeStale();
  return path.join(CACHE, file);
}

/**
 * Removes what no run needs any more: a bundle a newer one replaced (once it is a while old, as a
 * run may have just read its name), and what was kept for an entry that is gone (a test's
 * program in a temporary folder).
 */
function removeStale() {
  const now = Date.now();
  const files = fs.readdirSync(CACHE);
  const isManifest = (file) => file.endsWith(".json") && !file.startsWith(".");
  const kept = new Set();
  for (const file of files.filter(isManifest)) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(CACHE, file), "utf8"));
      if (typeof manifest.entry === "string" && fs.existsSync(manifest.entry)) kept.add(manifest.bundle);
      else fs.rmSync(path.join(CACHE, file), { force: true });
    } catch {
      // Another run removed it first.
    }
  }
  for (const file of files) {
    if (isManifest(file) || kept.has(file)) continue;
    try {
      if (now - fs.statSync(path.join(CACHE, file)).mtimeMs > STALE_MS) fs.rmSync(path.join(CACHE, file));
    } catch {
      // Another run removed it first.
    }
  }
}

function run(bundleFile, file, args) {
  process.argv = [process.argv[0], path.resolve(file), ...args];
  process.setSourceMapsEnabled(true);
  require(bundleFile);
}

function main() {
  const [file, ...args] = process.argv.slice(2);
  if (!file) {
    console.error("usage: node scripts/run-typescript.cjs FILE.ts [ARGS...]");
    process.exit(2);
  }
  if (!fs.existsSync(file)) {
    console.error(`run-typescript: ${file} does not exist`);
    process.exit(2);
  }
  const key = builderKey();
  // Its real path, as esbuild and Node name a module reached through a symbolic link; and one id
  // for it in each project that may share this cache (through a linked node_modules).
  const entry = fs.realpathSync(file);
  const id = hash(`${ROOT}\0${entry}`).slice(0, 8);
  const ready = freshBundle(manifestPath(id), key);
  if (ready) {
    try {
      return run(ready, file, args);
    } catch (error) {
      // A run that bundled the program anew may have removed this bundle since it was found.
      const missing = error?.code === "MODULE_NOT_FOUND" || error?.code === "ENOENT";
      if (!missing || fs.existsSync(ready)) throw error;
    }
  }
  bundle(entry, id, key).then(
    // Run outside the promise, so that what the program throws at its top level is uncaught, as
    // it would be had it been required at once.
    (made) => setImmediate(() => run(made, file, args)),
    (error) => {
      console.error(`run-typescript: ${file} could not be bundled:\n${error.message}`);
      process.exit(1);
    },
  );
}

main();
