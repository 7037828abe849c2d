/**
 * The Effects' search index: after `gatsby build`, Pagefind (https://pagefind.app) reads the built
 * pages and writes a static index with its own small search script into `public/pagefind/`. Only
 * what an Effect's page marks with `data-pagefind-body` (its article, src/components/effects/
 * effect-article.tsx) is indexed, so the index holds the published Effects and nothing else; the
 * archive loads it when a reader searches (src/components/effects/effect-search.tsx). Under
 * `gatsby develop`, which writes no pages, the same index is made from the Effects' fields
 * (writeDevelopSearchIndex).
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { installedCommand } from "./installed-command";
import { SEARCH_WORKER } from "../src/components/effects/search-setup";
import { effectPath } from "../src/effects/paths";
import { escapeHtml } from "../supabase/functions/_shared/contract/escape-html";

// Gatsby bundles gatsby-node.ts and its imports, which leaves no `require.resolve`: resolve from the project.
const requireFromRoot = createRequire(path.resolve("package.json"));

/** Where the index and Pagefind's script live in the built site (`/pagefind/pagefind.js`). */
export const SEARCH_DIR = "pagefind";

/**
 * Pagefind's command, which runs the prebuilt binary npm installed for this platform
 * (@pagefind/linux-x64 and the like). Its Node API is an ES module only, which the compiled
 * gatsby-node cannot `require`; the command does the same work.
 */
const pagefindCommand = () => installedCommand("pagefind");

/** The Effects' pages (`/effects/2026-11-21/`); the archive's pages under it hold no article to index. */
const EFFECT_PAGES = "effects/**/index.html";

/**
 * Indexes the built pages in `publicDir` and writes `publicDir/pagefind/`, replacing the last
 * build's index. `published` is how many Effect pages the build made: with none there is nothing to
 * search (and the archive shows no form), and an index that holds another number of pages fails
 * the build. Beside it, the worker the archive's form searches in (`writeSearchWorker`). Returns
 * how many pages it indexed; throws with Pagefind's messages.
 */
export async function writeSearchIndex(publicDir: string, published: number): Promise<number> {
  const indexed = await runPagefind(publicDir, path.join(publicDir, SEARCH_DIR), published);
  await writeSearchWorker(publicDir);
  return indexed;
}

/**
 * Indexes the Effect pages under `siteDir` into `outputPath`, checking that it holds `published`
 * pages; with none, removes the index. The new index is written beside the last one and takes its
 * place only once whole and checked: a failed run leaves the last index as it was.
 */
async function runPagefind(siteDir: string, outputPath: string, published: number): Promise<number> {
  // Pagefind indexes every page when none is marked: with no Effect yet, no index at all.
  if (published === 0) {
    await rm(outputPath, { recursive: true, force: true });
    return 0;
  }
  const next = `${outputPath}.next`;
  await rm(next, { recursive: true, force: true });
  try {
    await promisify(execFile)(
      pagefindCommand(),
      [
        ...["--site", siteDir, "--output-path", next],
        ...["--glob", EFFECT_PAGES, "--force-language", "en", "--quiet"],
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    await rm(next, { recursive: true, force: true });
    const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`Pagefind could not index the pages: ${stderr || stdout || message}`);
  }
  const entry = JSON.parse(await readFile(path.join(next, "pagefind-entry.json"), "utf8")) as {
    languages: Record<string, { page_count: number }>;
  };
  const indexed = Object.values(entry.languages).reduce((sum, language) => sum + language.page_count, 0);
  if (indexed !== published) {
    await rm(next, { recursive: true, force: true });
    throw new Error(`Pagefind indexed ${indexed} pages, not the ${published} Effects published`);
  }
  await rm(outputPath, { recursive: true, force: true });
  await rename(next, outputPath);
  return indexed;
}

/** Where `gatsby develop` writes the Effects' articles for Pagefind to read (writeDevelopSearchIndex). */
export const DEVELOP_SEARCH_PAGES = ".cache/develop-search-pages";

/** What the development index needs of a published Effect (its node's fields). */
export interface IndexedEffect {
  date: string;
  dateLabel: string;
  title: string;
  /** The body rendered from the editor's Markdown (src/effects/markdown.ts). */
  html: string;
}

/**
 * The part of an Effect's page that the search indexes, as its article marks it
 * (src/components/effects/effect-article.tsx): the date, kept only as the result's `date`, the
 * title and the body. e2e/effect-search.test.ts checks that the index made from these holds what
 * the index of the built pages holds, Effect by Effect.
 */
export function indexedArticle(effect: IndexedEffect): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><article data-pagefind-body><p data-pagefind-ignore><time data-pagefind-meta="date">` +
    `${escapeHtml(effect.dateLabel)}</time></p><h1 id="effect-title">${escapeHtml(effect.title)}</h1>` +
    `<div>${effect.html}</div></article></body></html>`
  );
}

/**
 * Under `gatsby develop` (`npm run cms`), which writes no pages: the published Effects' articles
 * written into `workDir` as the build would write their pages, indexed into `publicDir/pagefind/`
 * with the worker beside it, which the development server serves from `public/`. Called each time
 * the pages are made, so a saved Effect is found without a restart.
 */
export async function writeDevelopSearchIndex(
  publicDir: string,
  workDir: string,
  effects: readonly IndexedEffect[],
): Promise<number> {
  await rm(workDir, { recursive: true, force: true });
  for (const effect of effects) {
    const folder = path.join(workDir, effectPath(effect.date));
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "index.html"), indexedArticle(effect));
  }
  const indexed = await runPagefind(workDir, path.join(publicDir, SEARCH_DIR), effects.length);
  await writeSearchWorker(publicDir);
  return indexed;
}

/**
 * src/components/effects/search-worker.ts as one module script, `publicDir` + SEARCH_WORKER. esbuild
 * is required here, not imported (as in build/cms-admin.ts): the site's tests import gatsby-node
 * in a browser-like environment, where esbuild refuses to load.
 */
export async function writeSearchWorker(publicDir: string): Promise<void> {
  const { build } = requireFromRoot("esbuild") as typeof import("esbuild");
  await build({
    entryPoints: [path.resolve("src/components/effects/search-worker.ts")],
    outfile: path.join(publicDir, SEARCH_WORKER),
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2020",
    logLevel: "silent",
  });
}
