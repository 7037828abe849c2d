/**
 * The built site served as a static host would, as Hono middleware around `@hono/node-server`'s
 * `serveStatic` (which finds the file, `index.html` for folders, and refuses paths outside
 * `public/`). What this module adds, because `serveStatic` does not: the cache rule per file
 * (`site-headers/cache-control.ts`), brotli or gzip on the fly (Gatsby writes no `.br`/`.gz`
 * files; each file is compressed once per build), `404.html` with status 404, and never serving
 * the hosts' own `_headers` file.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Context, MiddlewareHandler } from "hono";
import { etag } from "hono/etag";
import { cacheControlFor, REVALIDATE } from "../site-headers/cache-control.ts";
import { HOST_HEADERS_FILE } from "../site-headers/host-headers.ts";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const COMPRESSIBLE = /^(?:text\/|application\/(?:json|manifest\+json|xml|javascript)|image\/svg\+xml)/;
const YAML = "text/yaml; charset=utf-8";
/** Smaller than this, compression costs more than it saves. */
const MIN_COMPRESS_BYTES = 1024;

type Encoding = "br" | "gzip";

/** The browser's preferred encoding we offer, honouring `q=0`. */
export function pickEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    accepted.set(name, q ? Number(q.slice(2)) : 1);
  }
  const quality = (name: Encoding) =>
    accepted.get(name) ?? (accepted.has("*") ? (accepted.get("*") ?? 0) : 0);
  if (quality("br") > 0) return "br";
  if (quality("gzip") > 0) return "gzip";
  return null;
}

/** Compresses a compressible answer for the browser, caching each file's compressed body. */
function compression(): MiddlewareHandler {
  const cache = new Map<string, Promise<Buffer>>();
  return async (c, next) => {
    await next();
    const type = c.res.headers.get("content-type") ?? "";
    if (!c.res.body || c.res.headers.has("content-encoding") || !COMPRESSIBLE.test(type)) return;
    const body = Buffer.from(await c.res.arrayBuffer());
    const headers = new Headers(c.res.headers);
    let out: Buffer = body;
    if (body.length >= MIN_COMPRESS_BYTES) {
      headers.set("Vary", "Accept-Encoding");
      const encoding = pickEncoding(c.req.header("accept-encoding"));
      if (encoding) {
        const key = `${c.req.path}:${headers.get("last-modified")}:${body.length}:${encoding}`;
        let pending = cache.get(key);
        if (!pending) {
          pending =
            encoding === "br"
              ? brotli(body, {
                  params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
                })
              : gzipAsync(body, { level: 9 });
          cache.set(key, pending);
          pending.catch(() => cache.delete(key));
        }
        out = await pending;
        headers.set("Content-Encoding", encoding);
      }
    }
    headers.set("Content-Length", String(out.length));
    const status = c.res.status;
    // Hono copies the old answer's headers onto a new one (Content-Length included); a clean slate.
    c.res = undefined;
    c.res = new Response(new Uint8Array(out), { status, headers });
  };
}

/** The URL path decoded and normalised (`/a/%2e%2e/b` → `/b`), or null when it cannot name a file. */
export function decodedSitePath(urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  return path.posix.normalize(decoded.startsWith("/") ? decoded : `/${decoded}`);
}

/** `404.html` with status 404, or a plain "Not Found" when the site has none. */
async function notFoundPage(c: Context, publicDir: string): Promise<Response> {
  try {
    const page = await readFile(path.join(publicDir, "404.html"));
    return c.body(new Uint8Array(page), 404, { "Content-Type": "text/html; charset=utf-8" });
  } catch {
    return c.text("Not Found\n", 404);
  }
}

/** Middleware answering every GET and HEAD with the built site; other methods get 405. */
export function staticSite(publicDir: string): MiddlewareHandler[] {
  // Made once the folder exists: `serveStatic` complains at creation about a missing root, and
  // the stack may start (functions only) before the first build.
  let files: MiddlewareHandler | null = null;
  const serveFiles: MiddlewareHandler = async (c, next) => {
    if (!files && existsSync(publicDir)) files = serveStatic({ root: publicDir });
    return files ? files(c, next) : undefined;
  };
  return [
    async (c, next) => {
      if (c.req.method !== "GET" && c.req.method !== "HEAD") {
        return c.text("Method Not Allowed\n", 405, { Allow: "GET, HEAD" });
      }
      // Every rule is decided on the path the file system will see: `/static/..%2findex.html` is
      // `/index.html` and gets the page's rules, and `/x/..%2f_headers` is the hosts' own
      // configuration, which hosts that read it never serve.
      const sitePath = decodedSitePath(c.req.path);
      if (sitePath === null || sitePath === `/${HOST_HEADERS_FILE}`) c.res = await notFoundPage(c, publicDir);
      else await next();
      // The content editor's configuration; Hono's table of types has no YAML.
      if (c.res.status === 200 && sitePath?.endsWith(".yml")) c.res.headers.set("Content-Type", YAML);
      // Here, after `etag`, so a 304 (which `etag` builds afresh) keeps the rule as well.
      c.res.headers.set(
        "Cache-Control",
        c.res.status === 404 || sitePath === null ? REVALIDATE : cacheControlFor(sitePath),
      );
    },
    etag({ weak: true }),
    compression(),
    async (c) => (await serveFiles(c, async () => undefined)) ?? notFoundPage(c, publicDir),
  ];
}
