/**
 * The no-JavaScript twin: a copy of the built site with every script taken out of every HTML file
 * and nothing else changed (the same HTML, CSS, font and hero picture, served with the same
 * headers). Lighthouse on the landing page beside its twin shows what the scripts cost a visitor.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse, type DefaultTreeAdapterMap } from "parse5";

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

/** The `type` values a browser runs as JavaScript; any other type is a data block (JSON-LD). */
const JAVASCRIPT_TYPES = new Set([
  "",
  "module",
  "text/javascript",
  "application/javascript",
  "text/ecmascript",
  "application/ecmascript",
]);

const attribute = (element: Element, name: string): string | undefined =>
  element.attrs.find((attr) => attr.name === name)?.value;

const relTokens = (element: Element): string[] =>
  (attribute(element, "rel") ?? "").toLowerCase().split(/\s+/).filter(Boolean);

/**
 * What the twin leaves out: a script the browser would run, the `<template id="gatsby-scripts">`
 * a build that starts Gatsby later keeps its scripts in, and a link that fetches a script ahead.
 */
function isScript(element: Element): boolean {
  if (element.tagName === "script") {
    return JAVASCRIPT_TYPES.has((attribute(element, "type") ?? "").trim().toLowerCase());
  }
  if (element.tagName === "template") return attribute(element, "id") === "gatsby-scripts";
  if (element.tagName === "link") {
    const rel = relTokens(element);
    if (rel.includes("modulepreload")) return true;
    return (
      (rel.includes("preload") || rel.includes("prefetch")) &&
      attribute(element, "as")?.toLowerCase() === "script"
    );
  }
  return false;
}

type Range = [start: number, end: number];

/** The source ranges of every script element and every inline event handler (`onclick=`) in `node`. */
function scriptRanges(node: Node, ranges: Range[]): void {
  if ("tagName" in node) {
    const location = node.sourceCodeLocation;
    if (location && isScript(node)) {
      // An element the parser closed itself (no end tag in the file) ends where its content ends.
      ranges.push([location.startOffset, location.endTag?.endOffset ?? location.endOffset]);
      return;
    }
    for (const attr of node.attrs) {
      const at = location?.attrs?.[attr.name];
      if (at && attr.name.startsWith("on")) ranges.push([at.startOffset, at.endOffset]);
    }
    if ("content" in node) scriptRanges(node.content, ranges);
  }
  if ("childNodes" in node) for (const child of node.childNodes) scriptRanges(child, ranges);
}

/**
 * `html` without its scripts: the elements are cut out of the source text, so every other byte of
 * the page stays as the build wrote it.
 */
export function withoutScripts(html: string): { html: string; removed: number } {
  const ranges: Range[] = [];
  scriptRanges(parse(html, { sourceCodeLocationInfo: true }), ranges);
  ranges.sort((a, b) => a[0] - b[0]);
  let kept = "";
  let from = 0;
  let removed = 0;
  for (const [start, end] of ranges) {
    // A range inside one already cut (an attribute of a removed element) is gone with it.
    if (start < from) continue;
    kept += html.slice(from, start);
    from = end;
    removed += 1;
  }
  return { html: kept + html.slice(from), removed };
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".html"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

export interface Twin {
  dir: string;
  /** HTML files rewritten, and the scripts, script templates, preloads and handlers taken out of them. */
  htmlFiles: number;
  removed: number;
  remove: () => void;
}

/**
 * Copies the built site in `publicDir` to `dir` (replacing what was there) and rewrites every HTML
 * file of the copy with `rewrite`, which says how many things it changed.
 */
export function writeRewrittenCopy(
  publicDir: string,
  dir: string,
  rewrite: (html: string) => { html: string; removed: number },
): Twin {
  rmSync(dir, { recursive: true, force: true });
  cpSync(publicDir, dir, { recursive: true });
  const files = htmlFiles(dir);
  let removed = 0;
  for (const file of files) {
    const result = rewrite(readFileSync(file, "utf8"));
    writeFileSync(file, result.html);
    removed += result.removed;
  }
  return {
    dir,
    htmlFiles: files.length,
    removed,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Copies the built site in `publicDir` to `dir` (replacing what was there) and takes the scripts out. */
export const writeTwin = (publicDir: string, dir: string): Twin =>
  writeRewrittenCopy(publicDir, dir, withoutScripts);
