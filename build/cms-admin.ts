/**
 * Puts the CMS at `public/admin/`: Decap's standalone bundle (its own React, loaded only there),
 * copied from node_modules at build time rather than committed, `config.yml` generated from
 * src/content/schema.ts, and the preview pane's code and CSS (`/admin/previews.js`
 * from src/cms-preview/previews.tsx, `/admin/preview.css` from the site's src/styles/global.css).
 * `static/admin/` adds the page and the editor setup script; the sign-in's two pages are written
 * with the functions' address (./cms-sign-in-pages.ts).
 */
import { copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { GatsbyNode } from "gatsby";
import type { PreviewTexts } from "../src/cms-preview/preview-texts.ts";
import { backendFromEnv, cmsConfigYaml } from "../src/content/cms-config.ts";
import type { Brand, EffectPages } from "../src/content/schema.ts";
import { functionsBaseFor, writeSignInPages } from "./cms-sign-in-pages.ts";

// Gatsby bundles gatsby-node.ts and its imports, which leaves no `require.resolve`: resolve from the project.
const requireFromRoot = createRequire(path.resolve("package.json"));

/** The bundle, the chunks it loads next to itself, its WebAssembly and its licence; no source maps. */
const BUNDLE_FILE = /^(?:\d+\.)?decap-cms\.js$|^decap-cms\.js\.LICENSE\.txt$|\.wasm$/;

export const decapDistDir = (): string =>
  path.join(path.dirname(requireFromRoot.resolve("decap-cms/package.json")), "dist");

/** The display face's two files as the site's CSS names them, each copied beside `/admin/preview.css`. */
const FONTS = [
  {
    cssUrl: 'url("~@fontsource/anton/files/anton-latin-400-normal.woff2")',
    file: () =>
      path.join(
        path.dirname(requireFromRoot.resolve("@fontsource/anton/package.json")),
        "files",
        "anton-latin-400-normal.woff2",
      ),
  },
  {
    cssUrl: 'url("../fonts/anton-basic-400-normal.woff2")',
    file: () => path.resolve("src/fonts/anton-basic-400-normal.woff2"),
  },
];

/** The previews' bundle: the site's components and renderers, React with them, the texts inlined. */
// esbuild, PostCSS and Tailwind are required when the CMS is written, not when gatsby-node.ts is
// imported (the site's tests import it in a browser-like environment, where esbuild refuses to load).
// They are CommonJS and are required, not imported: Gatsby compiles gatsby-node for a build without
// the default-export interop, so `(await import("tailwindcss")).default` is undefined there.
async function writePreviews(target: string, texts: PreviewTexts): Promise<void> {
  const { build } = requireFromRoot("esbuild") as typeof import("esbuild");
  await build({
    entryPoints: [path.resolve("src/cms-preview/previews.tsx")],
    outfile: path.join(target, "previews.js"),
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2020",
    jsx: "automatic",
    legalComments: "linked",
    alias: { gatsby: path.resolve("src/cms-preview/gatsby-stand-in.ts") },
    define: { "process.env.NODE_ENV": '"production"', __PREVIEW_TEXTS__: JSON.stringify(texts) },
    logLevel: "silent",
  });
}

/** The site's CSS as Gatsby builds it (Tailwind over src/), the font beside it. */
async function writePreviewCss(target: string): Promise<void> {
  const from = path.resolve("src/styles/global.css");
  let source = await readFile(from, "utf8");
  for (const font of FONTS) {
    if (!source.includes(font.cssUrl))
      throw new Error(`${from} no longer names ${font.cssUrl}: update build/cms-admin.ts`);
    source = source.replace(font.cssUrl, `url("${path.basename(font.file())}")`);
  }
  const postcss = requireFromRoot("postcss") as typeof import("postcss").default;
  const tailwindcss = requireFromRoot("tailwindcss") as typeof import("tailwindcss");
  const autoprefixer = requireFromRoot("autoprefixer") as typeof import("autoprefixer");
  const config = requireFromRoot(path.resolve("tailwind.config.js")) as Parameters<typeof tailwindcss>[0];
  const { css } = await postcss([tailwindcss(config), autoprefixer]).process(source, { from });
  await writeFile(path.join(target, "preview.css"), css);
  await Promise.all(
    FONTS.map((font) => copyFile(font.file(), path.join(target, path.basename(font.file())))),
  );
}

export async function writeCmsAdmin(
  publicDir: string,
  texts: PreviewTexts,
  env: Record<string, string | undefined> = process.env,
): Promise<{ files: number }> {
  const target = path.join(publicDir, "admin");
  await mkdir(target, { recursive: true });
  const dist = decapDistDir();
  const bundle = (await readdir(dist)).filter((name) => BUNDLE_FILE.test(name));
  if (!bundle.includes("decap-cms.js")) {
    throw new Error(`No decap-cms.js in ${dist}: run npm install`);
  }
  await Promise.all(bundle.map((name) => copyFile(path.join(dist, name), path.join(target, name))));
  // editor-setup.js reads and writes an Effect's YAML with the same library as the build.
  const jsYaml = path.join(
    path.dirname(requireFromRoot.resolve("js-yaml/package.json")),
    "dist",
    "js-yaml.min.js",
  );
  await copyFile(jsYaml, path.join(target, "js-yaml.min.js"));
  const backend = backendFromEnv(env);
  await writeFile(path.join(target, "config.yml"), cmsConfigYaml(backend));
  await Promise.all([
    writePreviews(target, texts),
    writePreviewCss(target),
    writeSignInPages(publicDir, functionsBaseFor(backend.functionsBase)),
  ]);
  return { files: bundle.length + 2 };
}

/** The CMS, its previews' texts from the same content nodes as the pages (gatsby-node.ts). */
export const writeCmsAdminFor = (
  publicDir: string,
  { siteUrl, timeZone, name: brandName }: Pick<Brand, "siteUrl" | "timeZone" | "name">,
  { name, mail, effect }: EffectPages,
): Promise<{ files: number }> =>
  writeCmsAdmin(publicDir, { siteUrl, timeZone, brandName, effectPages: { name, mail, effect } });

/**
 * `gatsby develop` (which `npm run cms` runs) serves files from public/ but answers every HTML
 * request with its own pages, so the editor's page is handed out here.
 */
export const serveCmsAdminPage: GatsbyNode["onCreateDevServer"] = ({ app }) => {
  app.get(
    ["/admin", "/admin/", "/admin/index.html"],
    (_request: unknown, response: { sendFile: (file: string) => void }) => {
      response.sendFile(path.resolve("public", "admin", "index.html"));
    },
  );
};
