/**
 * `npm run check:docs` (part of `npm run check`): the docs and the code's comments name only files
 * and folders that exist. A file path in backticks in README.md or docs/*.md, and a file name in a
 * comment of the code, must match a tracked file or folder: the whole path from the root, or its
 * end (`storage.ts` in the table of `server/`, `deno/serve.ts` under `_shared/`). A
 * renamed or deleted file then fails the check instead of leaving a doc that sends a newcomer
 * nowhere. Generated places (`public/`, `.data/`, ...), placeholders (`YYYY-MM-DD`, `$DATA_DIR`,
 * `<name>`) and URLs are not checked.
 *
 * And docs/architecture.md stays a map, not a copy of the code: it names every folder that holds
 * source (in backticks, its whole path), stays within ARCHITECTURE_MAX_LINES of its own (the
 * tables generated into it aside), and leaves each module's job to the module's own opening
 * comment, which every module must have.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..");

/** What a file name in the docs or a comment ends with. */
const EXTENSIONS = "ts|tsx|js|mjs|cjs|md|yaml|yml|json|sql|toml|css|html|sh";
const FILE_NAME = new RegExp(`^[\\w.@-][\\w./@-]*\\.(?:${EXTENSIONS})$`);

/** Made by a build, a run or a tool, not kept in the repository. */
const GENERATED =
  /^(public|\.data|\.cache|\.effect-cards|\.node|\.test-site|\.test-site-cache|\.test-site\.next|\.test-site\.old|\.test-project|\.cms-develop|\.public-aside|\.cache-aside|node_modules|coverage|screenshots|bench\/\.tmp)(\/|$)|^src\/gatsby-types\.d\.ts$/;

/**
 * Files a build writes (`404.html`, an Effect's `mail.json`, content-hashed bundles), never
 * tracked; and a static host's server-code files, which a build must never hold.
 */
const BUILT =
  /(^|\/)(404\.html|mail\.json|sender\.json|latest\.json|config\.yml|feed\.json|rss\.xml|_worker\.js|_routes\.json)$|index\.html$|[-.][0-9a-f]{8,}\.(js|css)$/;

/** A folder path in backticks: `server/`, `supabase/functions/_shared/`. */
const FOLDER = /^[\w.-]+(\/[\w.-]+)*\/$/;

export interface Reference {
  file: string;
  line: number;
  name: string;
}

/** Every tracked file, and every folder that holds one, as paths from the root. */
export function repositoryPaths(root = ROOT): Set<string> {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  const paths = new Set<string>();
  for (const file of files) {
    paths.add(file);
    for (let dir = path.posix.dirname(file); dir !== "."; dir = path.posix.dirname(dir)) paths.add(`${dir}/`);
  }
  return paths;
}

/**
 * True when `name` is a path in the repository, or the end of one; a relative one (starting with `../` or `./`) is
 * read from the folder of `from`, the file that names it.
 */
export function exists(name: string, paths: Set<string>, from = ""): boolean {
  if (name.startsWith("../") || name.startsWith("./"))
    return paths.has(path.posix.normalize(path.posix.join(path.posix.dirname(from), name)));
  const wanted = name;
  if (paths.has(wanted)) return true;
  for (const candidate of paths) if (candidate.endsWith(`/${wanted}`)) return true;
  return false;
}

const checkable = (name: string): boolean =>
  !GENERATED.test(name) && !BUILT.test(name) && !/YYYY|\$|\{|<|\*|:\/\//.test(name) && !name.startsWith("/");

/** File and folder paths written in backticks in a Markdown text. */
export function markdownReferences(file: string, text: string): Reference[] {
  const references: Reference[] = [];
  text.split("\n").forEach((line, index) => {
    for (const [, code] of line.matchAll(/`([^`\s]+)`/g)) {
      if ((FILE_NAME.test(code) || FOLDER.test(code)) && checkable(code))
        references.push({ file, line: index + 1, name: code });
    }
  });
  return references;
}

/** File names in the comments of a source text (`//` lines and block comments). */
export function commentReferences(file: string, text: string): Reference[] {
  const references: Reference[] = [];
  let inBlock = false;
  text.split("\n").forEach((line, index) => {
    let comment = "";
    const trimmed = line.trim();
    if (inBlock || trimmed.startsWith("/*")) {
      comment = line;
      inBlock = !line.includes("*/");
    } else {
      const at = line.indexOf("// ");
      const before = line.slice(0, Math.max(at, 0));
      // Not the `//` of a URL, nor one inside a string.
      const inString = [`"`, `'`, "`"].some((quote) => before.split(quote).length % 2 === 0);
      if (at !== -1 && line[at - 1] !== ":" && !inString) comment = line.slice(at);
    }
    for (const [name] of comment.matchAll(new RegExp(`[\\w.@/-]+\\.(?:${EXTENSIONS})\\b`, "g"))) {
      const start = comment.indexOf(name);
      // Part of a URL or a package's own file, not one of ours.
      if (/https?:\/\/\S*$/.test(comment.slice(0, start)) || name.includes("node_modules")) continue;
      const cleaned = name.replace(/[.]+$/, "");
      if (FILE_NAME.test(cleaned) && cleaned.includes(".") && checkable(cleaned))
        references.push({ file, line: index + 1, name: cleaned });
    }
  });
  return references;
}

/** Every reference in the docs and the code's comments that names nothing in the repository. */
export function missingReferences(root = ROOT): Reference[] {
  const paths = repositoryPaths(root);
  const tracked = [...paths].filter((name) => !name.endsWith("/"));
  const docs = tracked.filter((name) => name === "README.md" || /^docs\/.+\.md$/.test(name));
  const sources = tracked.filter((name) => /\.(ts|tsx|js|mjs|cjs)$/.test(name) && !GENERATED.test(name));
  const read = (name: string) => readFileSync(path.join(root, name), "utf8");
  return [
    ...docs.flatMap((name) => markdownReferences(name, read(name))),
    ...sources.flatMap((name) => commentReferences(name, read(name))),
  ].filter((reference) => !exists(reference.name, paths, reference.file));
}

export const ARCHITECTURE = "docs/architecture.md";
export const ARCHITECTURE_MAX_LINES = 250;

const isModule = (name: string) =>
  /\.(ts|tsx|js|mjs|cjs)$/.test(name) &&
  !GENERATED.test(name) &&
  !/(^|\/)(__tests__|__mocks__)\/|\.test\.[jt]sx?$|^e2e\/fixtures\//.test(name);

/** The folders docs/architecture.md names: whole paths, or under the folder its `###` heading names. */
export function architectureFolders(text: string): Set<string> {
  const names = new Set<string>();
  let folder = "";
  for (const line of text.split("\n")) {
    if (/^#{1,3} /.test(line)) {
      folder = /^### .*`([^`]+\/)`/.exec(line)?.[1] ?? "";
      continue;
    }
    for (const [, code] of line.matchAll(/`([^`\s]+\/)`/g)) names.add(code).add(`${folder}${code}`);
  }
  return names;
}

/** Folders holding source (tests and the root's config files aside) that docs/architecture.md does not name. */
export function unnamedFolders(root = ROOT): string[] {
  const named = architectureFolders(readFileSync(path.join(root, ARCHITECTURE), "utf8"));
  const folders = new Set(
    [...repositoryPaths(root)]
      .filter(isModule)
      .map((name) => path.posix.dirname(name))
      .filter((dir) => dir !== ".")
      .map((dir) => `${dir}/`),
  );
  // A folder may be named through the pattern its siblings share: `supabase/functions/<name>/`.
  const byPattern = [...named]
    .filter((folder) => folder.includes("<"))
    .map((folder) => new RegExp(`^${folder.replace(/[.]/g, "\\.").replace(/<[^>]+>/g, "[^/]+")}$`));
  return [...folders]
    .filter((folder) => !named.has(folder) && !byPattern.some((pattern) => pattern.test(folder)))
    .sort();
}

/** Modules whose first line is not a comment saying what they are for. */
export function modulesWithoutOpeningComment(root = ROOT): string[] {
  return [...repositoryPaths(root)]
    .filter(isModule)
    .filter((name) => {
      const first = readFileSync(path.join(root, name), "utf8").trimStart();
      return !(first.startsWith("/*") || first.startsWith("//") || first.startsWith("#!"));
    })
    .sort();
}

/** A block `npm run config:docs` writes (`<!-- NAME:start (written by ...) -->` to `<!-- NAME:end -->`). */
const GENERATED_BLOCK = /^<!-- ([\w-]+):start \(written by [^\n]*-->\n[\s\S]*?^<!-- \1:end -->$/gm;

/**
 * docs/architecture.md's lines as written by hand: a block generated from the code (the functions'
 * table, one row a function) is left out, so a new function costs the budget nothing.
 */
export function architectureLines(root = ROOT): number {
  const text = readFileSync(path.join(root, ARCHITECTURE), "utf8").replace(GENERATED_BLOCK, "");
  return text.trimEnd().split("\n").length;
}

if (require.main === module) {
  const missing = missingReferences();
  for (const { file, line, name } of missing)
    console.error(`${file}:${line}: names ${name}, which does not exist`);
  const unnamed = unnamedFolders();
  for (const name of unnamed) console.error(`${ARCHITECTURE} does not name the folder ${name}`);
  const uncommented = modulesWithoutOpeningComment();
  for (const name of uncommented) console.error(`${name} does not open with a comment saying its job`);
  const lines = architectureLines();
  if (lines > ARCHITECTURE_MAX_LINES)
    console.error(
      `${ARCHITECTURE} has ${lines} lines of its own; keep it under ${ARCHITECTURE_MAX_LINES}: say less, link more`,
    );
  if (missing.length > 0)
    console.error(`\n${missing.length} references to files or folders that do not exist.`);
  if (missing.length + unnamed.length + uncommented.length > 0 || lines > ARCHITECTURE_MAX_LINES)
    process.exit(1);
}
