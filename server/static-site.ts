/**
 * Serves the built site as a static host would: `index.html` for directories, `404.html` with
 * status 404 for anything unknown, gzip or brotli when the browser takes it, a year's immutable
 * cache for content-hashed files and `/static/`, and revalidation for HTML and page data
 * (https://www.gatsbyjs.com/docs/how-to/previews-deploys-hosting/caching/).
 */
import { createHash } from "node:crypto";
import { type Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import { promisify } from "node:util";
import { HOST_HEADERS_FILE } from "./host-headers.ts";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".yml": "text/yaml; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
};
const COMPRESSIBLE = new Set([
  ".html",
  ".js",
  ".mjs",
  ".css",
  ".json",
  ".webmanifest",
  ".xml",
  ".txt",
  ".yml",
  ".map",
  ".svg",
]);
/** Smaller than this, compression costs more than it saves. */
const MIN_COMPRESS_BYTES = 1024;

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

/** Webpack's content hash in a file name: `app-3855b1364636878916d1.js`, `styles.394ff6693c0233675c7b.css`. */
const HASHED_ASSET = /[-.][0-9a-f]{16,}\.(?:js|css)$/;

export const cacheControlFor = (urlPath: string): string =>
  urlPath.startsWith("/static/") || HASHED_ASSET.test(urlPath) ? IMMUTABLE : REVALIDATE;

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

interface FileEntry {
  body: Buffer;
  etag: string;
  key: string;
}

export interface StaticSite {
  /** Answers a GET or HEAD; `extraHeaders` go on every answer (security headers). */
  serve(
    request: IncomingMessage,
    response: ServerResponse,
    extraHeaders: Record<string, string>,
  ): Promise<number>;
}

export function createStaticSite(publicDir: string): StaticSite {
  const root = path.resolve(publicDir);
  // Compressed bodies by path, size and mtime: each file is compressed once per build.
  const compressed = new Map<string, Promise<Buffer>>();

  async function find(urlPath: string): Promise<{ file: string; stats: Stats } | null> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return null;
    }
    // The host's own configuration, not a page: hosts that read it never serve it.
    if (decoded.includes("\0") || decoded === `/${HOST_HEADERS_FILE}`) return null;
    const candidate = path.join(root, path.normalize(decoded));
    if (candidate !== root && !candidate.startsWith(root + path.sep)) return null;
    for (const file of [candidate, path.join(candidate, "index.html")]) {
      const stats = await stat(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
        throw error;
      });
      if (stats?.isFile()) return { file, stats };
    }
    return null;
  }

  async function load(file: string, stats: Stats): Promise<FileEntry> {
    const key = `${file}:${stats.size}:${stats.mtimeMs}`;
    const body = await readFile(file);
    const etag = `W/"${createHash("sha1").update(key).digest("base64url").slice(0, 16)}"`;
    return { body, etag, key };
  }

  function encode(entry: FileEntry, encoding: Encoding): Promise<Buffer> {
    const cacheKey = `${entry.key}:${encoding}`;
    let pending = compressed.get(cacheKey);
    if (!pending) {
      pending =
        encoding === "br"
          ? brotli(entry.body, {
              params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: entry.body.length },
            })
          : gzipAsync(entry.body, { level: 9 });
      compressed.set(cacheKey, pending);
      pending.catch(() => compressed.delete(cacheKey));
    }
    return pending;
  }

  return {
    async serve(request, response, extraHeaders) {
      const url = new URL(request.url ?? "/", "http://localhost");
      const headers: Record<string, string> = { ...extraHeaders };
      if (request.method !== "GET" && request.method !== "HEAD") {
        response.writeHead(405, {
          ...headers,
          Allow: "GET, HEAD",
          "Content-Type": "text/plain; charset=utf-8",
        });
        response.end("Method Not Allowed\n");
        return 405;
      }
      let found = await find(url.pathname);
      let status = 200;
      let cacheControl = cacheControlFor(url.pathname);
      if (!found) {
        status = 404;
        cacheControl = REVALIDATE;
        found = await find("/404.html");
        if (!found) {
          response.writeHead(404, {
            ...headers,
            "Content-Type": "text/plain; charset=utf-8",
            "Cache-Control": REVALIDATE,
          });
          response.end("Not Found\n");
          return 404;
        }
      }
      const entry = await load(found.file, found.stats);
      const extension = path.extname(found.file).toLowerCase();
      headers["Content-Type"] = TYPES[extension] ?? "application/octet-stream";
      headers["Cache-Control"] = cacheControl;
      headers.ETag = entry.etag;
      const compressible = COMPRESSIBLE.has(extension) && entry.body.length >= MIN_COMPRESS_BYTES;
      if (compressible) headers.Vary = "Accept-Encoding";
      if (status === 200 && request.headers["if-none-match"] === entry.etag) {
        response.writeHead(304, headers);
        response.end();
        return 304;
      }
      const encoding = compressible ? pickEncoding(request.headers["accept-encoding"]) : null;
      const body = encoding ? await encode(entry, encoding) : entry.body;
      if (encoding) headers["Content-Encoding"] = encoding;
      headers["Content-Length"] = String(body.length);
      response.writeHead(status, headers);
      response.end(request.method === "HEAD" ? undefined : body);
      return status;
    },
  };
}
