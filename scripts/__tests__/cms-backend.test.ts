/**
 * `npm run cms`'s local backend refuses what is not the editor's page editing content: a request
 * for another Host (DNS rebinding), one without this run's token, and any path outside content/
 * (and static/uploads/), `..` and symbolic links included. What it does answer, it answers as
 * Decap's proxy protocol expects, on a copy of the project.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { type RunningCmsBackend, startCmsBackend } from "../cms-backend";
import { editorAddress } from "../cms";

const ROOT = path.resolve(__dirname, "../..");
const TOKEN = "this-runs-token-0123456789abcdef";
const SITE = "http://localhost:8000";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe("the content editor's local backend", () => {
  let repo: string;
  let backend: RunningCmsBackend;

  beforeAll(async () => {
    repo = mkdtempSync(path.join(tmpdir(), "cms-backend-"));
    cpSync(path.join(ROOT, "content"), path.join(repo, "content"), { recursive: true });
    writeFileSync(path.join(repo, ".env"), "SMTP_URL=smtp://user:secret@mail.example\n");
    writeFileSync(path.join(repo, "package.json"), '{"name":"site"}\n');
    cpSync(path.join(ROOT, ".github"), path.join(repo, ".github"), { recursive: true });
    // A link inside content/ that leads out of it.
    symlinkSync(repo, path.join(repo, "content", "way-out"));
    backend = await startCmsBackend({ root: repo, token: TOKEN, port: 0, siteOrigins: [SITE] });
  });
  afterAll(async () => {
    await backend?.close();
    rmSync(repo, { recursive: true, force: true });
  });

  /** A raw request, so the Host header is whatever a page elsewhere could make the browser send. */
  function call(
    body: unknown,
    options: { host?: string; token?: string | null; origin?: string; method?: string } = {},
  ): Promise<Answer> {
    const query = options.token === null ? "" : `?token=${options.token ?? TOKEN}`;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: backend.port,
          path: `/api/v1${query}`,
          method: options.method ?? "POST",
          headers: {
            host: options.host ?? `localhost:${backend.port}`,
            "content-type": "application/json",
            ...(options.origin ? { origin: options.origin } : {}),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  it("answers the editor's page: info, an entry, a save, with CORS for the site only", async () => {
    const info = await call({ action: "info" }, { origin: SITE });
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toMatchObject({ publish_modes: ["simple"], type: "local_fs" });
    expect(info.headers["access-control-allow-origin"]).toBe(SITE);

    const brand = JSON.parse(
      (await call({ action: "getEntry", params: { path: "content/brand.yaml" } })).body,
    );
    expect(brand.data).toBe(readFileSync(path.join(repo, "content/brand.yaml"), "utf8"));

    const saved = await call({
      action: "persistEntry",
      params: { dataFiles: [{ path: "content/effects/2031-01-01.yaml", raw: "title: T\n" }], assets: [] },
    });
    expect(saved.status).toBe(200);
    expect(readFileSync(path.join(repo, "content/effects/2031-01-01.yaml"), "utf8")).toBe("title: T\n");

    const listed = JSON.parse(
      (
        await call({
          action: "entriesByFolder",
          params: { folder: "content/effects", extension: "yaml", depth: 1 },
        })
      ).body,
    ) as { file: { path: string } }[];
    expect(listed.map((entry) => entry.file.path)).toContain("content/effects/2031-01-01.yaml");

    const elsewhere = await call({ action: "info" }, { origin: "https://evil.example" });
    expect(elsewhere.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("refuses a request for another Host, as a rebound DNS name sends it", async () => {
    for (const host of [
      `evil.example:${backend.port}`,
      "localhost:1",
      `localhost.evil.example:${backend.port}`,
    ]) {
      const answer = await call({ action: "getEntry", params: { path: "content/brand.yaml" } }, { host });
      expect([host, answer.status]).toEqual([host, 403]);
      expect(answer.body).not.toContain("siteUrl");
    }
    expect((await call({ action: "info" }, { host: `127.0.0.1:${backend.port}` })).status).toBe(200);
  });

  it("refuses a request without this run's token, or with another", async () => {
    for (const token of [null, "", "guess", `${TOKEN}x`, TOKEN.slice(0, -1)]) {
      const answer = await call({ action: "getEntry", params: { path: "content/brand.yaml" } }, { token });
      expect([token, answer.status]).toEqual([token, 401]);
      expect(answer.body).toContain("open the address npm run cms printed");
    }
  });

  it("reads and writes nothing outside content/: not .env, package.json or .github/, not by .. or a link", async () => {
    const outside = [
      ".env",
      "package.json",
      ".github/workflows/deploy-site.yml",
      "content/../.env",
      "content/../package.json",
      "/etc/passwd",
      "content/way-out/.env",
      "content/way-out/package.json",
      "static/social-card.png",
      "contents/brand.yaml",
      "content\\..\\.env",
    ];
    for (const file of outside) {
      const read = await call({ action: "getEntry", params: { path: file } });
      expect([file, read.status]).toEqual([file, 403]);
      expect(read.body).not.toContain("secret");
      expect(read.body).not.toContain('{"name":"site"}');
    }
    const writes = [
      {
        action: "persistEntry",
        params: { dataFiles: [{ path: ".github/workflows/evil.yml", raw: "on: push" }], assets: [] },
      },
      { action: "persistEntry", params: { entry: { path: "package.json", raw: "{}" }, assets: [] } },
      {
        action: "persistEntry",
        params: {
          dataFiles: [{ path: "content/effects/2031-01-02.yaml", raw: "title: T\n" }],
          assets: [{ path: "content/../.env", content: "eA==", encoding: "base64" }],
        },
      },
      {
        action: "persistMedia",
        params: { asset: { path: "static/evil.js", content: "eA==", encoding: "base64" } },
      },
      {
        action: "persistMedia",
        params: { asset: { path: "content/way-out/gatsby-node.ts", content: "eA==", encoding: "base64" } },
      },
      { action: "deleteFile", params: { path: "package.json" } },
      { action: "deleteFiles", params: { paths: ["content/brand.yaml", ".env"] } },
      { action: "entriesByFolder", params: { folder: ".github", extension: "yml", depth: 3 } },
      { action: "getMedia", params: { mediaFolder: "content/way-out" } },
    ];
    for (const body of writes) {
      const answer = await call(body);
      expect([body.action, answer.status]).toEqual([body.action, 403]);
    }
    expect(readFileSync(path.join(repo, ".env"), "utf8")).toContain("secret");
    expect(readFileSync(path.join(repo, "package.json"), "utf8")).toBe('{"name":"site"}\n');
    expect(existsSync(path.join(repo, ".github/workflows/evil.yml"))).toBe(false);
    expect(existsSync(path.join(repo, "static/evil.js"))).toBe(false);
    expect(existsSync(path.join(repo, "gatsby-node.ts"))).toBe(false);
    // A save with one bad path writes none of it.
    expect(existsSync(path.join(repo, "content/effects/2031-01-02.yaml"))).toBe(false);
    // deleteFiles checked every path first: brand.yaml is still there.
    expect(existsSync(path.join(repo, "content/brand.yaml"))).toBe(true);
  });

  it("saves an upload into static/uploads/, made on first use", async () => {
    const answer = await call({
      action: "persistMedia",
      params: {
        asset: {
          path: "static/uploads/note.txt",
          content: Buffer.from("hi").toString("base64"),
          encoding: "base64",
        },
      },
    });
    expect(answer.status).toBe(200);
    expect(readFileSync(path.join(repo, "static/uploads/note.txt"), "utf8")).toBe("hi");
  });

  it("answers other methods, paths and actions with an error, not a crash", async () => {
    expect((await call(undefined, { method: "GET" })).status).toBe(404);
    expect((await call({ action: "deleteEverything" })).status).toBe(422);
    expect((await call({ action: "constructor" })).status).toBe(422);
  });

  it("is opened at the address npm run cms prints, which carries the port and the token in its fragment", () => {
    expect(editorAddress(8000, 8081, TOKEN)).toBe(
      `http://localhost:8000/admin/#cms-backend=8081&cms-token=${TOKEN}`,
    );
  });
});
