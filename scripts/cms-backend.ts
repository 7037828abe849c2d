/**
 * The content editor's local backend for `npm run cms`: what Decap CMS's proxy backend talks to
 * (`POST /api/v1` with `{action, params}`), in place of decap-server, which reads and writes the
 * whole repository for anyone who can reach its port. This one
 *
 * - answers only requests addressed to `localhost:PORT` or `127.0.0.1:PORT` (a page that rebinds
 *   its own DNS name to 127.0.0.1 still sends its own name as Host, and is refused);
 * - answers only requests that carry this run's token (`?token=`), made by `npm run cms` and
 *   handed to the editor's page in the address it prints, never written to a file;
 * - reads and writes only files under `content/` and the uploads folder (`static/uploads/`): no
 *   `.env`, no `package.json`, no `.github/`, no hidden files, no way out by `..` or a symbolic link;
 * - lets only the editor's page (the site's origins) read its answers (CORS).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { mkdir, readdir, readFile, realpath, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";

/** The folders an editor's saves may touch, relative to the project. */
export const EDITABLE = ["content", "static/uploads"] as const;
const MAX_BODY_BYTES = 20 * 1024 * 1024;

export interface CmsBackendOptions {
  /** The project folder: content/ and static/uploads/ under it. */
  root: string;
  /** This run's token. */
  token: string;
  /** The port it listens on (0: any free one) on 127.0.0.1. */
  port: number;
  /** The editor page's origins, e.g. http://localhost:8000. */
  siteOrigins: readonly string[];
  log?: (line: string) => void;
}

export class OutsideContent extends Error {}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

const sameToken = (given: string | undefined, token: string) => {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The absolute path of `relative` (as Decap names it: `content/brand.yaml`) when it is
 * under an editable folder, also after following symbolic links; else `OutsideContent`.
 */
export async function editablePath(root: string, relative: unknown): Promise<string> {
  const refuse = () =>
    new OutsideContent(
      `Only files under ${EDITABLE.map((dir) => `${dir}/`).join(" and ")} can be read or written here (asked for ${JSON.stringify(relative)}).`,
    );
  if (typeof relative !== "string" || relative.includes("\0") || relative.includes("\\")) throw refuse();
  const normal = path.posix.normalize(relative);
  if (path.posix.isAbsolute(normal) || normal.split("/").some((part) => part.startsWith("."))) throw refuse();
  const folder = EDITABLE.find((dir) => normal === dir || normal.startsWith(`${dir}/`));
  if (!folder) throw refuse();
  const realRoot = await realpath(root);
  const realFolder = await realpath(path.join(realRoot, folder)).catch(() => path.join(realRoot, folder));
  if (realFolder !== path.join(realRoot, folder)) throw refuse();
  // The deepest part that exists, resolved: a link inside content/ must not lead out of it.
  const absolute = path.join(realRoot, normal);
  let existing = absolute;
  for (;;) {
    try {
      const real = await realpath(existing);
      const inside = real === realFolder || real.startsWith(`${realFolder}${path.sep}`);
      // Or the folder itself does not exist yet (no uploads so far): nothing below could be a link.
      const aboveMissingFolder =
        real === existing && `${realFolder}${path.sep}`.startsWith(`${real}${path.sep}`);
      if (!inside && !aboveMissingFolder) throw refuse();
      break;
    } catch (error) {
      if (error instanceof OutsideContent) throw error;
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      existing = path.dirname(existing);
    }
  }
  return absolute;
}

async function listFiles(dir: string, extension: string, depth: number): Promise<string[]> {
  if (depth <= 0) return [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found = await Promise.all(
    entries
      .filter((entry) => !entry.name.startsWith("."))
      .map((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return listFiles(full, extension, depth - 1);
        return entry.isFile() && full.endsWith(extension) ? [full] : [];
      }),
  );
  return found.flat();
}

type Params = Record<string, unknown>;

/** The Decap proxy protocol's actions, on the editable folders only. */
function actions(root: string) {
  const relative = async (file: string) =>
    path
      .relative(await realpath(root), file)
      .split(path.sep)
      .join("/");

  async function entry(file: { path: unknown; label?: unknown }) {
    const absolute = await editablePath(root, file.path);
    try {
      const content = await readFile(absolute);
      return {
        data: content.toString("utf8"),
        file: { path: file.path, label: file.label, id: sha256(content) },
      };
    } catch {
      return { data: null, file: { path: file.path, label: file.label, id: null } };
    }
  }

  async function mediaFile(file: unknown) {
    const absolute = await editablePath(root, file);
    const content = await readFile(absolute);
    return {
      id: sha256(content),
      content: content.toString("base64"),
      encoding: "base64",
      path: await relative(absolute),
      name: path.basename(absolute),
    };
  }

  async function write(file: unknown, content: Buffer | string) {
    const absolute = await editablePath(root, file);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }

  const list = (value: unknown): Params[] => (Array.isArray(value) ? (value as Params[]) : []);

  return {
    info: async () => ({ repo: path.basename(root), publish_modes: ["simple"], type: "local_fs" }),
    entriesByFolder: async (params: Params) => {
      const folder = await editablePath(root, params.folder);
      const files = await listFiles(folder, String(params.extension ?? ""), Number(params.depth ?? 1));
      return Promise.all(files.map(async (file) => entry({ path: await relative(file) })));
    },
    entriesByFiles: async (params: Params) =>
      Promise.all(list(params.files).map((file) => entry(file as never))),
    getEntry: async (params: Params) => entry({ path: params.path }),
    persistEntry: async (params: Params) => {
      const dataFiles = params.dataFiles ? list(params.dataFiles) : [params.entry as Params];
      // Every path is checked before anything is written.
      for (const file of dataFiles) {
        await editablePath(root, file?.path);
        if (file?.newPath) await editablePath(root, file.newPath);
      }
      for (const asset of list(params.assets)) await editablePath(root, asset.path);
      for (const file of dataFiles) await write(file.path, String(file.raw ?? ""));
      for (const asset of list(params.assets))
        await write(
          asset.path,
          Buffer.from(String(asset.content), asset.encoding === "base64" ? "base64" : "utf8"),
        );
      for (const file of dataFiles)
        if (file.newPath) {
          const to = await editablePath(root, file.newPath);
          await mkdir(path.dirname(to), { recursive: true });
          await rename(await editablePath(root, file.path), to);
        }
      return { message: "entry persisted" };
    },
    getMedia: async (params: Params) => {
      const folder = await editablePath(root, params.mediaFolder);
      const files = await listFiles(folder, "", 1);
      return Promise.all(files.map(async (file) => mediaFile(await relative(file))));
    },
    getMediaFile: async (params: Params) => mediaFile(params.path),
    persistMedia: async (params: Params) => {
      const asset = (params.asset ?? {}) as Params;
      await write(
        asset.path,
        Buffer.from(String(asset.content), asset.encoding === "base64" ? "base64" : "utf8"),
      );
      return mediaFile(asset.path);
    },
    deleteFile: async (params: Params) => {
      await unlink(await editablePath(root, params.path)).catch(() => undefined);
      return { message: `deleted file ${String(params.path)}` };
    },
    deleteFiles: async (params: Params) => {
      const paths = Array.isArray(params.paths) ? params.paths : [];
      const absolute = await Promise.all(paths.map((file) => editablePath(root, file)));
      await Promise.all(absolute.map((file) => unlink(file).catch(() => undefined)));
      return { message: `deleted files ${paths.join(", ")}` };
    },
    getDeployPreview: async () => null,
  };
}

export function cmsBackendApp(options: CmsBackendOptions & { port: number }): Hono {
  const app = new Hono();
  const hosts = new Set([`localhost:${options.port}`, `127.0.0.1:${options.port}`]);
  const handlers = actions(options.root);
  const log = options.log ?? (() => undefined);

  app.use(async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (!hosts.has(host)) {
      log(`refused a request for Host: ${host.slice(0, 100)}`);
      return c.text(`This backend answers only at localhost:${options.port}.\n`, 403);
    }
    const origin = c.req.header("origin");
    if (origin && options.siteOrigins.includes(origin)) {
      c.header("Access-Control-Allow-Origin", origin);
      c.header("Vary", "Origin");
    }
    if (!sameToken(c.req.query("token"), options.token)) {
      log("refused a request without this run's token");
      return c.json(
        { error: "This backend needs the token of this run: open the address npm run cms printed." },
        401,
      );
    }
    return next();
  });
  app.options("/api/v1", (c) => {
    c.header("Access-Control-Allow-Methods", "POST");
    c.header("Access-Control-Allow-Headers", "Content-Type");
    c.header("Access-Control-Max-Age", "600");
    return c.body(null, 204);
  });
  app.post(
    "/api/v1",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json({ error: "The request is too large." }, 413),
    }),
    async (c) => {
      let body: { action?: unknown; params?: unknown };
      try {
        body = await c.req.json();
      } catch {
        return c.json({ error: "The request must be JSON: {action, params}." }, 400);
      }
      const action = typeof body.action === "string" ? body.action : "";
      const handler = Object.hasOwn(handlers, action) ? handlers[action as keyof typeof handlers] : undefined;
      if (!handler) return c.json({ error: `Unknown action ${JSON.stringify(body.action)}` }, 422);
      try {
        return c.json(await handler((body.params ?? {}) as Params));
      } catch (error) {
        if (error instanceof OutsideContent) {
          log(`refused ${action}: ${error.message}`);
          return c.json({ error: error.message }, 403);
        }
        log(`${action} failed: ${error instanceof Error ? error.message : String(error)}`);
        return c.json(
          { error: `${action} failed: ${error instanceof Error ? error.message : String(error)}` },
          500,
        );
      }
    },
  );
  app.all("*", (c) => c.json({ error: "Not found: the content editor's backend is POST /api/v1." }, 404));
  return app;
}

export interface RunningCmsBackend {
  port: number;
  /** `http://localhost:PORT/api/v1` */
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 only. */
export async function startCmsBackend(options: CmsBackendOptions): Promise<RunningCmsBackend> {
  const { createServer } = await import("node:net");
  // The app needs its port for the Host check; with port 0, find a free one first.
  const port =
    options.port ||
    (await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once("error", reject);
      probe.listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    }));
  const app = cmsBackendApp({ ...options, port });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port }, () => resolve(started));
    started.once("error", reject);
  });
  return {
    port,
    url: `http://localhost:${port}/api/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
