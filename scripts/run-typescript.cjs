/**
 * Runs one of the project's TypeScript programs: `node scripts/run-typescript.cjs FILE ARGS`.
 * package.json's scripts and the tests' commands start every program this way.
 *
 * The program and the project's files it imports are bundled by esbuild into one CommonJS file
 * (packages stay outside and are required from node_modules as usual), kept in
 * node_modules/.cache/run-typescript/ and required. A later run reuses the bundle while every
 * file that went into it, tsconfig.json and package.json have the same content (compared by
 * hash, not by time: a checkout can keep a file's time and change its content); otherwise it
 * bundles again first (about 0.1 to 0.3 s). No loader hook runs: tsx's hooks, which check
 * every module Node loads, took half the CPU of a short command (a `subscribers stats` 1.2 s
 * with tsx and 0.65 s from a bundle). Source maps are on, so a stack names the .ts files.
 *
 * In the bundle each file keeps its own `__dirname` and `__filename`, and
 * `require.main === module` is true in FILE alone, as they were when each file was a module.
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
  const bundle = path.join(CACHE, manifest.bundle);
  return fs.existsSync(bundle) ? bundle : undefined;
}

const inPackage = (file) => file.split(path.sep).includes("node_modules");

/**
 * Gives each project file its own folder and name, and `require.main === module` to FILE only;
 * leaves a package's file imported by its path (as `require.resolve` gives it) to Node's require.
 */
const ownNames = (entry) => ({
  name: "own-names",
  setup(build) {
    build.onResolve({ filter: /^\// }, (args) =>
      inPackage(args.path) ? { path: args.path, external: true } : undefined,
    );
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
      if (inPackage(args.path)) return undefined;
      const source = fs.readFileSync(args.path, "utf8");
      const contents = source
        .replace(/\brequire\.main\s*===\s*module\b/g, args.path === entry ? "true" : "false")
        .replace(/\b__dirname\b/g, JSON.stringify(path.dirname(args.path)))
        .replace(/\b__filename\b/g, JSON.stringify(args.path));
      const extension = path.extname(args.path).slice(1).replace(/^[cm]/, "");
      return { contents, loader: extension };
    });
  },
});

async function bundle(entry, id, key) {
  const esbuild = require("esbuild");
  const name = `${path.basename(entry).replace(/\.[^.]+$/, "")}-${id}`;
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    outfile: path.join(CACHE, `${name}.cjs`),
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    target: `node${process.versions.node.split(".")[0]}`,
    sourcemap: "inline",
    sourcesContent: false,
    logLevel: "silent",
    plugins: [ownNames(entry)],
  });
  const code = result.outputFiles[0].contents;
  const file = `${name}-${hash(code).slice(0, 12)}.cjs`;
  const inputs = {};
  for (const input of [...Object.keys(result.metafile.inputs), ...SETTINGS]) inputs[input] = readHash(input);
  fs.mkdirSync(CACHE, { recursive: true });
  // Written under a name of this process's own and renamed: a run that starts meanwhile sees the
  // old bundle or the whole new one, never half of one.
  const temporary = path.join(CACHE, `.${process.pid}-${file}`);
  fs.writeFileSync(temporary, code);
  fs.renameSync(temporary, path.join(CACHE, file));
  const entryName = path.relative(ROOT, entry);
  fs.writeFileSync(`${temporary}.json`, JSON.stringify({ entry: entryName, key, inputs, bundle: file }));
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
      if (typeof manifest.entry === "string" && fs.existsSync(path.resolve(ROOT, manifest.entry)))
        kept.add(manifest.bundle);
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
      if (error?.code !== "MODULE_NOT_FOUND" || fs.existsSync(ready)) throw error;
    }
  }
  bundle(entry, id, key).then(
    // Run outside the promise, so that what the program throws at its top level is uncaught, as
    // it would be had it been required at once.
    (made) => setImmediate(() => run(made, file, args)),
    (error) => {
      const messages = (error.errors ?? []).map(
        (e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ""}${e.text}`,
      );
      console.error(`run-typescript: ${file} could not be bundled:\n${messages.join("\n") || error}`);
      process.exit(1);
    },
  );
}

main();
