/**
 * Puts the CMS at `public/admin/`: Decap's standalone bundle (its own React, loaded only there),
 * copied from node_modules at build time rather than committed, and `config.yml` generated from
 * src/content/schema.ts. `static/admin/` adds the page and the editor setup script.
 */
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { backendFromEnv, cmsConfigYaml } from "../src/content/cms-config.ts";

// Gatsby bundles gatsby-node.ts and its imports, which leaves no `require.resolve`: resolve from the project.
const requireFromRoot = createRequire(path.resolve("package.json"));

/** The bundle, the chunks it loads next to itself, its WebAssembly and its licence; no source maps. */
const BUNDLE_FILE = /^(?:\d+\.)?decap-cms\.js$|^decap-cms\.js\.LICENSE\.txt$|\.wasm$/;

export const decapDistDir = (): string =>
  path.join(path.dirname(requireFromRoot.resolve("decap-cms/package.json")), "dist");

export async function writeCmsAdmin(
  publicDir: string,
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
  await writeFile(path.join(target, "config.yml"), cmsConfigYaml(backendFromEnv(env)));
  return { files: bundle.length + 2 };
}
