/**
 * The two Deno versions the functions are tested on, each its own executable (not
 * `node_modules/.bin/deno`, which either package may claim):
 *
 * - `edge`: the Deno that Supabase's hosted Edge Runtime embeds, read at
 *   https://github.com/supabase/edge-runtime/blob/b1edf453/deno/Cargo.toml (2026-11): `version = "2.1.4"`. package.json pins it as the
 *   `deno-edge-runtime` devDependency (`npm:deno@2.1.4`): that alias is the one place to change
 *   when the runtime moves. The runtime twin (`edge-runtime-twin.ts`) runs on it.
 * - `current`: the newest Deno (the `deno` devDependency), so the code keeps working as Deno moves.
 */
import path from "node:path";

export type DenoRuntime = "edge" | "current";

const PACKAGES: Record<DenoRuntime, string> = { edge: "deno-edge-runtime", current: "deno" };

const packageDir = (runtime: DenoRuntime) =>
  path.dirname(require.resolve(`${PACKAGES[runtime]}/package.json`));

/** The executable of `runtime` (the npm package's own resolver finds its platform's binary). */
export function denoExecutable(runtime: DenoRuntime): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const installer = require(path.join(packageDir(runtime), "install_api.cjs")) as { runInstall(): string };
  return installer.runInstall();
}

/** The version package.json pins for `runtime`, e.g. "2.1.4". */
export function denoVersion(runtime: DenoRuntime): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(path.join(packageDir(runtime), "package.json")) as { version: string }).version;
}

/**
 * The environment every Deno the tests start gets: Deno 2.1 reads this machine's certificates only
 * from the system store (the npm registry is reached through it), and no Deno may adopt the
 * repository's package.json and node_modules, which Supabase does not have.
 */
export const DENO_ENV = { DENO_TLS_CA_STORE: "system", DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" };
