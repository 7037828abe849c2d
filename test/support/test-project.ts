/**
 * The browser tests' copy of the project, `.test-project/`: what the build reads
 * (scripts/site-build.ts), what `npm start` runs (its scripts, the stack, the migrations) and the
 * tests' fixture Effects. The tests' site is built there (e2e/build-test-site.ts), never in the
 * project itself, and its pages are published to `.test-site/`, which the browser tests serve.
 * `e2e/start-freshness.test.ts` then runs `npm start` in the copy, on that build and its Gatsby
 * cache, as a developer would: one production build of the whole site serves both. Inside the
 * project, so the copy finds the project's node_modules as Node does, by walking up; git, the
 * linters and the other tests ignore it.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { BUILD_FILE, BUILD_FOLDERS, filesUnder } from "../../scripts/site-build";
import { E2E_EFFECTS_ENV } from "./effects";
import { E2E_CMS_ENV } from "./github-stand-in";
import { ROOT, TEST_SITE_DIR } from "./stack";

export const TEST_PROJECT_DIR = path.join(ROOT, ".test-project");

/** The environment the tests' site is built with, and `npm start` in the copy runs with. */
export const TEST_PROJECT_ENV = { ...E2E_EFFECTS_ENV, ...E2E_CMS_ENV } as const;

/** What the copy holds, from the project's root. */
const ITEMS = [
  ...BUILD_FOLDERS,
  "scripts",
  "server",
  "supabase/migrations",
  E2E_EFFECTS_ENV.EFFECTS_DIR,
  "package.json",
  "tsconfig.json",
];

const sameContent = (a: string, b: string): boolean =>
  existsSync(a) &&
  existsSync(b) &&
  statSync(a).size === statSync(b).size &&
  readFileSync(a).equals(readFileSync(b));

/**
 * Makes the copy's files the project's again (what a test changed, deleted or added there
 * included), writing only the files that differ, so the rest keep their times and Gatsby's cache
 * its work; its build (`public/`) and Gatsby's cache stay.
 */
export function syncTestProject(): void {
  const files = (root: string, items: string[]) =>
    items.flatMap((item) => filesUnder(root, path.join(root, item)));
  const rootFiles = (root: string) => readdirSync(root).filter((name) => BUILD_FILE.test(name));
  const wanted = new Set(files(ROOT, [...ITEMS, ...rootFiles(ROOT)]));
  const present = existsSync(TEST_PROJECT_DIR)
    ? files(TEST_PROJECT_DIR, [...ITEMS, ...rootFiles(TEST_PROJECT_DIR)])
    : [];
  for (const file of present) if (!wanted.has(file)) rmSync(path.join(TEST_PROJECT_DIR, file));
  for (const file of wanted) {
    const [source, copy] = [path.join(ROOT, file), path.join(TEST_PROJECT_DIR, file)];
    if (sameContent(source, copy)) continue;
    mkdirSync(path.dirname(copy), { recursive: true });
    copyFileSync(source, copy);
  }
}

/** Files that differ between two builds whenever anything does: the compilation and the landing page. */
const BUILD_MARKS = ["index.html", path.join("page-data", "app-data.json")];

/**
 * Puts the copy's built pages in `.test-site/` unless `built` is false and they are there already:
 * written beside it and renamed into place, the old ones renamed away first, so a reader finds the
 * old pages or the new (or, for the instant between the two renames, none), never a mix of them.
 */
export function publishTestSite(built: boolean): void {
  const pages = path.join(TEST_PROJECT_DIR, "public");
  if (
    !built &&
    BUILD_MARKS.every((file) => sameContent(path.join(pages, file), path.join(TEST_SITE_DIR, file)))
  )
    return;
  const [next, old] = [`${TEST_SITE_DIR}.next`, `${TEST_SITE_DIR}.old`];
  for (const folder of [next, old]) rmSync(folder, { recursive: true, force: true });
  cpSync(pages, next, { recursive: true });
  if (existsSync(TEST_SITE_DIR)) renameSync(TEST_SITE_DIR, old);
  renameSync(next, TEST_SITE_DIR);
  rmSync(old, { recursive: true, force: true });
}
