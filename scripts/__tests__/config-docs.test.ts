/**
 * The one configuration registry and everything made from it: `.env.example` and the table in
 * docs/operating.md are what the registry writes, no module reads the environment around it, and
 * no registered variable is read by nothing. And the other files `npm run config:docs` writes are
 * in step with their sources (the manifest, what the build reads).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { VARIABLES } from "../../supabase/functions/_shared/contract/variables.ts";
import {
  ARCHITECTURE_DOC,
  configurationTable,
  DEPLOY_SITE_WORKFLOW,
  ENV_EXAMPLE,
  envExample,
  functionsTable,
  OPERATING_DOC,
  ROOT,
  SUPABASE_CONFIG,
  supabaseConfig,
  withDeployPaths,
  withFunctionsTable,
  withTable,
  withTransportsTable,
  transportsTable,
} from "../config-docs.ts";
import { FUNCTIONS } from "../../supabase/functions/_shared/manifest.ts";
import { TRANSPORTS } from "../../supabase/functions/_shared/mail/transports.ts";

const REGISTRY = "supabase/functions/_shared/contract/variables.ts";
/** Gatsby inlines `process.env.GATSBY_*` into the browser's code at build time, by that exact spelling. */
const INLINED_BY_THE_BUILD = "src/newsletter/functions-client.ts";

/** The project's own source, its test tooling and benchmarks included, but not the tests themselves. */
function productSources(): string[] {
  return execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => /\.(ts|tsx|js|mjs)$/.test(file))
    .filter((file) =>
      /^(src|server|scripts|build|supabase\/functions|site-headers|test|bench|e2e)\/|^gatsby-/.test(file),
    )
    .filter((file) => !/__tests__|\.test\.[jt]sx?$/.test(file));
}

describe("the configuration registry", () => {
  it("writes .env.example", () => {
    expect(readFileSync(ENV_EXAMPLE, "utf8")).toBe(envExample());
  });

  it("writes the configuration table in docs/operating.md", () => {
    const doc = readFileSync(OPERATING_DOC, "utf8");
    expect(doc).toBe(withTable(doc, configurationTable()));
    for (const { name } of VARIABLES) expect(doc).toContain(`\`${name}\``);
  });

  it("writes the transports' table in docs/operating.md from mail/transports.ts", () => {
    const doc = readFileSync(OPERATING_DOC, "utf8");
    expect(doc).toBe(withTransportsTable(doc, transportsTable()));
    for (const { variable } of TRANSPORTS) expect(transportsTable()).toContain(`| \`${variable}\` |`);
  });

  it("writes the functions' table in docs/architecture.md from the manifest", () => {
    const doc = readFileSync(ARCHITECTURE_DOC, "utf8");
    expect(doc).toBe(withFunctionsTable(doc, functionsTable()));
    for (const { name } of FUNCTIONS) expect(doc).toContain(`| \`${name}\` |`);
  });

  it("writes supabase/config.toml from the manifest", () => {
    expect(readFileSync(SUPABASE_CONFIG, "utf8")).toBe(supabaseConfig());
  });

  it("writes the paths that start deploy-site.yml from what the build reads", () => {
    const workflow = readFileSync(DEPLOY_SITE_WORKFLOW, "utf8");
    expect(workflow).toBe(withDeployPaths(workflow));
    expect(workflow).toContain('      - "site-headers/**"\n');
  });

  it("is the only way the product reads the environment", () => {
    // A string that names process.env (the key of esbuild's `define`) is not a read.
    const direct =
      /(?<!["'`])\bprocess\.env\.[A-Z][A-Z0-9_]+\b|(?<!["'`]process\.)\benv\.[A-Z][A-Z0-9_]+\b|\benv\[\s*["'`][A-Z]|Deno\.env\.get\(/;
    const offenders: string[] = [];
    for (const file of productSources()) {
      if (file === REGISTRY) continue;
      readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (/^\s*(\*|\/\/)/.test(line)) return;
          if (file === INLINED_BY_THE_BUILD && /process\.env\.GATSBY_[A-Z_]+/.test(line)) return;
          // Setting a variable for what runs next (the tests' PostgreSQL) is not reading one.
          if (/process\.env\.[A-Z][A-Z0-9_]* = [^=]/.test(line)) return;
          if (direct.test(line)) offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it("registers no variable that nothing reads", () => {
    const sources = productSources()
      .filter((file) => file !== REGISTRY)
      .map((file) => readFileSync(path.join(ROOT, file), "utf8"))
      .join("\n");
    const unread = VARIABLES.map(({ name }) => name).filter(
      (name) => !sources.includes(`"${name}"`) && !sources.includes(`process.env.${name}`),
    );
    expect(unread).toEqual([]);
  });
});
