/**
 * The built site as a static host serves it: compression, caching by file kind, 404.html with
 * status 404, and security headers whose Content-Security-Policy allows exactly the site's
 * inline scripts.
 */
import { TEST_SITE_DIR } from "../../test/support/stack.ts";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { hostHeaders } from "../../site-headers/host-headers.ts";
import { type RunningServer, startServer } from "../start-server.ts";
import { preparedDataDir } from "../../test/support/test-stack.ts";

const INLINE = 'window.___webpackCompilationHash="abc";';
const BIG_JS = `console.log(${JSON.stringify("x".repeat(5000))});`;
const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

function writeSite(dir: string) {
  const files: Record<string, string> = {
    "index.html": `<!doctype html><html><head><script>${INLINE}</script><script type="application/ld+json">{"@context":"https://schema.org"}</script></head><body>${"<p>Home</p>".repeat(200)}<script src="/app-3855b1364636878916d1.js" async></script></body></html>`,
    "404.html": "<!doctype html><html><body><h1>404</h1><p>Oops! Page not found</p></body></html>",
    "about/index.html": "<!doctype html><html><body>About</body></html>",
    "app-3855b1364636878916d1.js": BIG_JS,
    "styles.394ff6693c0233675c7b.css": "body{color:red}",
    "page-data/index/page-data.json": JSON.stringify({ path: "/", padding: "y".repeat(2000) }),
    "static/hero-1a2b3c.png": "not really a png",
    "pagefind/pagefind.js": "export {};",
    "pagefind/pagefind-entry.json": "{}",
    "pagefind/pagefind.en_13ab3ad0b2.pf_meta": "meta",
    "pagefind/index/en_1acd887.pf_index": "index",
    "pagefind/fragment/en_6f628c4.pf_fragment": "fragment",
    "robots.txt": "User-agent: *\n",
  };
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
}

/** A raw request, for paths fetch would normalise (`..`) and for Accept-Encoding control. */
function get(url: string, pathName: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      { host: target.hostname, port: target.port, path: pathName, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the static site", () => {
  let dir: string;
  let server: RunningServer;
  let url: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await preparedDataDir();
    dir = mkdtempSync(path.join(tmpdir(), "newsletter-site-"));
    writeSite(path.join(dir, "public"));
    server = await startServer({
      env: {
        PORT: "0",
        DATA_DIR: dataDir,
        PUBLIC_DIR: path.join(dir, "public"),
        GATSBY_SUPABASE_URL: "https://project.supabase.co",
      },
      log: quietLog,
    });
    url = server.url.replace("localhost", "127.0.0.1");
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves the home page with revalidation and the security headers", async () => {
    const response = await get(url, "/");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.headers["cache-control"]).toBe("no-cache");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["x-frame-options"]).toBe("DENY");
    expect(response.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(response.headers["permissions-policy"]).toContain("camera=()");
  });

  it("allows the page's inline scripts by hash, not every inline script", async () => {
    const csp = String((await get(url, "/")).headers["content-security-policy"]);
    const hash = createHash("sha256").update(INLINE).digest("base64");
    const scriptSrc = csp.split("; ").find((directive) => directive.startsWith("script-src "));
    expect(scriptSrc).toContain(`'sha256-${hash}'`);
    expect(scriptSrc).not.toContain("unsafe-inline");
    // The archive's search compiles WebAssembly (Pagefind); no other kind of eval is allowed.
    expect(scriptSrc).toContain("'wasm-unsafe-eval'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
    // The JSON-LD block is data the browser never runs: it needs no hash, and adds none.
    expect(scriptSrc?.match(/'sha256-/g)).toHaveLength(1);
    expect(csp).toContain("connect-src 'self' https://project.supabase.co");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'self'");
    // The signup card posts to send-confirmation on the Supabase project without JavaScript.
    expect(csp).toContain("form-action 'self' https://project.supabase.co");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
  });

  it("writes the same headers for static hosts into _headers, and does not serve that file", async () => {
    const served = await get(url, "/");
    const file = hostHeaders(path.join(dir, "public"), ["https://project.supabase.co"]);
    const rules = new Map(
      file
        .split(/\n(?=\/)/)
        .slice(1)
        .map((block) => {
          const [pattern, ...lines] = block.trim().split("\n");
          return [
            pattern,
            new Map(
              lines.map(
                (line) =>
                  line
                    .trim()
                    .split(/: (.*)/)
                    .slice(0, 2) as [string, string],
              ),
            ),
          ];
        }),
    );
    const everyPage = rules.get("/*");
    for (const name of [
      "Content-Security-Policy",
      "X-Frame-Options",
      "Referrer-Policy",
      "Permissions-Policy",
    ]) {
      expect(everyPage?.get(name)).toBe(served.headers[name.toLowerCase()]);
    }
    // Hosts join a header two rules set, so no Cache-Control for every page.
    expect(everyPage?.has("Cache-Control")).toBe(false);
    const longLived = "public, max-age=31536000, immutable";
    expect(rules.get("/static/*")?.get("Cache-Control")).toBe(longLived);
    // A hashed file's rule has a splat in the hash's place: one rule for every build of it.
    expect(rules.get("/app-*.js")?.get("Cache-Control")).toBe(longLived);
    expect(rules.get("/styles.*.css")?.get("Cache-Control")).toBe(longLived);
    expect(rules.get("/pagefind/fragment/*")?.get("Cache-Control")).toBe(longLived);
    expect(rules.get("/pagefind/pagefind.*.pf_meta")?.get("Cache-Control")).toBe(longLived);
    // A folder's rule, not one per file (an index of years holds thousands).
    expect(rules.has("/pagefind/fragment/en_6f628c4.pf_fragment")).toBe(false);
    expect(rules.has("/pagefind/pagefind.js")).toBe(false);
    expect(rules.has("/index.html")).toBe(false);

    writeFileSync(path.join(dir, "public", "_headers"), file);
    expect((await get(url, "/_headers")).status).toBe(404);
  });

  it("caches content-hashed files, /static/ and the search index's parts for a year, and page data not at all", async () => {
    expect((await get(url, "/app-3855b1364636878916d1.js")).headers["cache-control"]).toBe(
      "public, max-age=31536000, immutable",
    );
    expect((await get(url, "/styles.394ff6693c0233675c7b.css")).headers["cache-control"]).toBe(
      "public, max-age=31536000, immutable",
    );
    expect((await get(url, "/static/hero-1a2b3c.png")).headers["cache-control"]).toBe(
      "public, max-age=31536000, immutable",
    );
    // The search index's parts are named by their content; its script and entry file are not.
    for (const part of [
      "/pagefind/pagefind.en_13ab3ad0b2.pf_meta",
      "/pagefind/index/en_1acd887.pf_index",
      "/pagefind/fragment/en_6f628c4.pf_fragment",
    ]) {
      expect((await get(url, part)).headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    }
    expect((await get(url, "/pagefind/pagefind.js")).headers["cache-control"]).toBe("no-cache");
    expect((await get(url, "/pagefind/pagefind-entry.json")).headers["cache-control"]).toBe("no-cache");
    expect((await get(url, "/page-data/index/page-data.json")).headers["cache-control"]).toBe("no-cache");
    expect((await get(url, "/robots.txt")).headers["cache-control"]).toBe("no-cache");
  });

  it("compresses with brotli or gzip as the browser asks, and not small files", async () => {
    const br = await get(url, "/app-3855b1364636878916d1.js", { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(brotliDecompressSync(br.body).toString()).toBe(BIG_JS);
    const gz = await get(url, "/app-3855b1364636878916d1.js", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(BIG_JS);
    const plain = await get(url, "/app-3855b1364636878916d1.js", { "accept-encoding": "identity" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(BIG_JS);
    const small = await get(url, "/robots.txt", { "accept-encoding": "br" });
    expect(small.headers["content-encoding"]).toBeUndefined();
  });

  it("answers an unknown path with 404.html and status 404", async () => {
    const response = await get(url, "/no-such-page");
    expect(response.status).toBe(404);
    expect(response.body.toString()).toContain("Oops! Page not found");
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
  });

  it("serves a folder's index.html with or without the trailing slash", async () => {
    expect((await get(url, "/about/")).body.toString()).toContain("About");
    expect((await get(url, "/about")).body.toString()).toContain("About");
  });

  it("never serves files outside public/", async () => {
    for (const attempt of [
      "/../data/pglite.pid",
      "/%2e%2e/data/pglite.pid",
      "/..%2fdata/pglite.pid",
      "/%00",
    ]) {
      expect((await get(url, attempt)).status).toBe(404);
    }
  });

  it("answers a repeat visit with 304 Not Modified, HEAD without a body, and refuses POST", async () => {
    const first = await get(url, "/app-3855b1364636878916d1.js");
    const again = await get(url, "/app-3855b1364636878916d1.js", {
      "if-none-match": String(first.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const head = await get(url, "/", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body).toHaveLength(0);
    expect((await get(url, "/", {}, "POST")).status).toBe(405);
  });
});

// The browser tests' build (their global setup makes it when `npm test` runs every project).
const builtSite = path.join(TEST_SITE_DIR, "index.html");

(existsSync(builtSite) ? describe : describe.skip)("the Gatsby build's Content-Security-Policy", () => {
  it("lists a hash for every inline script of the built pages", async () => {
    const dataDir = await preparedDataDir();
    const server = await startServer({
      env: { PORT: "0", DATA_DIR: dataDir, PUBLIC_DIR: TEST_SITE_DIR },
      log: quietLog,
    });
    try {
      const response = await fetch(server.url.replace("localhost", "127.0.0.1"));
      const html = await response.text();
      const csp = response.headers.get("content-security-policy") ?? "";
      // Every inline script the browser runs; data blocks (JSON-LD, the page's path) are not run.
      const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>([\s\S]*?)<\/script>/g)]
        .filter((match) => !/type="application\/(ld\+)?json"/.test(match[1]))
        .map((match) => match[2]);
      expect(inline.length).toBeGreaterThan(0);
      for (const script of inline) {
        expect(csp).toContain(`'sha256-${createHash("sha256").update(script).digest("base64")}'`);
      }
      // Inline event handlers would need 'unsafe-hashes'; the build has none.
      expect(html).not.toMatch(/\son(load|error|click)=/i);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("shutdown", () => {
  it("finishes a request in flight and the mail it queued before stopping", async () => {
    const dataDir = await preparedDataDir();
    const server = await startServer({
      env: { PORT: "0", DATA_DIR: dataDir, PUBLIC_DIR: path.join(dataDir, "none") },
      log: quietLog,
    });
    try {
      const target = new URL(server.url.replace("localhost", "127.0.0.1"));
      const body = JSON.stringify({ email: "last-minute@example.com" });
      const answered = new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: target.hostname,
            port: target.port,
            path: "/functions/v1/send-confirmation",
            method: "POST",
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        // Half the body now, the rest after the stop has begun.
        req.write(body.slice(0, 10));
        setTimeout(() => req.end(body.slice(10)), 300);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = server.close();
      expect(await answered).toBe(200);
      await closed;
      const outbox = path.join(dataDir, "outbox");
      const mails = readdirSync(outbox).map((name) => readFileSync(path.join(outbox, name), "utf8"));
      expect(mails).toEqual([expect.stringContaining("To: last-minute@example.com")]);
      await expect(fetch(target)).rejects.toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
