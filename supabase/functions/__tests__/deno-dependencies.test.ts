/**
 * The Supabase functions' dependencies are pinned and locked: every deploy resolves the same,
 * verified code, and it is the code the local stack and the tests run under Node.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const FUNCTIONS = path.resolve(__dirname, "..");
const ROOT = path.resolve(FUNCTIONS, "../..");

interface DenoConfig {
  lock?: { path?: string; frozen?: boolean } | boolean | string;
  imports: Record<string, string>;
}
interface DenoLock {
  version: string;
  specifiers: Record<string, string>;
  npm: Record<string, { integrity?: string }>;
  workspace?: { dependencies?: string[] };
}

const config = JSON.parse(readFileSync(path.join(FUNCTIONS, "deno.json"), "utf8")) as DenoConfig;
const lock = JSON.parse(readFileSync(path.join(FUNCTIONS, "deno.lock"), "utf8")) as DenoLock;

/** `npm:postgres@3.4.9` or `npm:/nodemailer@7.0.13/` → ["postgres", "3.4.9"]. */
function npmSpecifier(target: string): [string, string] {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)\/?$/.exec(target);
  if (!match) throw new Error(`not an npm: specifier with a version: ${target}`);
  return [match[1], match[2]];
}

const installedVersion = (name: string): string =>
  (
    JSON.parse(readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

describe("the functions' dependencies", () => {
  const imports = Object.entries(config.imports);

  it("are exact versions, not ranges", () => {
    expect(imports.length).toBeGreaterThan(0);
    for (const [, target] of imports) expect(npmSpecifier(target)[1]).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("are the versions the local stack runs under Node", () => {
    for (const [, target] of imports) {
      const [name, version] = npmSpecifier(target);
      expect(`${name}@${installedVersion(name)}`).toBe(`${name}@${version}`);
    }
  });

  it("are locked in a format the Deno inside Supabase's Edge Runtime reads", () => {
    // Deno 2.1.4 (test/support/deno/runtimes.ts) reads lock files up to version 4 and refuses
    // newer Deno's 5 ("Unsupported lockfile version"); current Deno reads 4 as it is.
    expect(lock.version).toBe("4");
  });

  it("are recorded with their integrity in a lock file Deno may not change", () => {
    expect(config.lock).toEqual({ path: "./deno.lock", frozen: true });
    for (const [, target] of imports) {
      const [name, version] = npmSpecifier(target);
      // Type-only packages never load at run time, so Deno records them without a tarball.
      if (name.startsWith("@types/")) continue;
      expect(lock.npm[`${name}@${version}`]?.integrity).toMatch(/^sha512-/);
    }
  });
});
