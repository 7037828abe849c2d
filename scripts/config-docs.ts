/**
 * `npm run config:docs`: writes `.env.example` and the configuration table in docs/operating.md
 * from the one registry of variables (supabase/functions/_shared/contract/variables.ts), the
 * transports' table there from `mail/transports.ts`, the
 * functions' table in docs/architecture.md and supabase/config.toml from the manifest
 * (supabase/functions/_shared/manifest.ts), and the paths that start deploy-site.yml from what
 * the build reads (scripts/site-build.ts).
 * The test beside it fails when any is out of step with its source, so they cannot drift.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Variable, VARIABLES } from "../supabase/functions/_shared/contract/variables.ts";
import {
  exampleValue,
  FUNCTIONS,
  hostedRequirements,
  TRANSPORTS,
} from "../supabase/functions/_shared/hosts.ts";
import { BUILD_FILES, BUILD_FOLDERS } from "./site-build.ts";

export const ROOT = path.resolve(__dirname, "..");
export const ENV_EXAMPLE = path.join(ROOT, ".env.example");
export const OPERATING_DOC = path.join(ROOT, "docs", "operating.md");
export const ARCHITECTURE_DOC = path.join(ROOT, "docs", "architecture.md");
export const SUPABASE_CONFIG = path.join(ROOT, "supabase", "config.toml");
export const DEPLOY_SITE_WORKFLOW = path.join(ROOT, ".github", "workflows", "deploy-site.yml");
// Prettier would realign the table and so change it; the block is left as written.
const START =
  "<!-- prettier-ignore-start -->\n<!-- configuration:start (written by npm run config:docs from contract/variables.ts) -->";
const END = "<!-- configuration:end -->\n<!-- prettier-ignore-end -->";

const groups = () => {
  const byGroup = new Map<string, Variable[]>();
  for (const variable of VARIABLES as readonly Variable[])
    byGroup.set(variable.group, [...(byGroup.get(variable.group) ?? []), variable]);
  return byGroup;
};

/** What unset means, in words. */
const whenUnset = (variable: Variable): string =>
  variable.default !== undefined ? `\`${variable.default}\`` : (variable.unset ?? "unset");

const wrap = (text: string, width = 96): string[] => {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > width && line !== "#") {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
};

export function envExample(): string {
  const out = [
    "# Every variable the project reads, written by `npm run config:docs` from",
    "# supabase/functions/_shared/contract/variables.ts: edit that file, not this one.",
    "# Each has a working local default. `npm start` (and serve, effect, subscribers) read `.env`",
    "# when there is one (cp .env.example .env); a variable set in the environment wins over it.",
    "# On a static host: its build settings. On Supabase: `supabase secrets set NAME=value`.",
  ];
  for (const [group, variables] of groups()) {
    out.push("", `# --- ${group} ---`);
    for (const variable of variables) {
      const readers = `(${variable.readers.join(", ")})`;
      out.push(...wrap(`${variable.description} ${readers}`));
      if (variable.default === undefined && variable.unset) out.push(...wrap(`Unset: ${variable.unset}.`));
      out.push(`${variable.name}=${variable.secret ? "" : (variable.default ?? "")}`);
    }
  }
  return `${out.join("\n")}\n`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

export function configurationTable(): string {
  const out: string[] = [];
  for (const [group, variables] of groups()) {
    out.push(
      `**${group}**`,
      "",
      "| variable | read by | unset | what it does |",
      "| --- | --- | --- | --- |",
    );
    for (const variable of variables)
      out.push(
        `| \`${variable.name}\` | ${variable.readers.join(", ")} | ${cell(whenUnset(variable))} | ${cell(variable.description)}${variable.number ? ` (${variable.number.min} to ${variable.number.max ?? "any"})` : ""} |`,
      );
    out.push("");
  }
  return out.join("\n").trimEnd();
}

/**
 * `text` (the file `file`) with the lines between its `start` and `end` markers replaced by
 * `lines`, indented as the start marker is; throws when the markers are missing.
 */
function withBlock(text: string, file: string, [start, end]: [string, string], lines: string[]): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no "${start}" ... "${end}" block`);
  const indent = text.slice(text.lastIndexOf("\n", from) + 1, from);
  return [
    text.slice(0, from + start.length),
    ...lines.map((line) => (line ? `${indent}${line}` : line)),
    `${indent}${text.slice(to)}`,
  ].join("\n");
}

/** The doc with its table replaced by the registry's; throws when the markers are missing. */
export function withTable(doc: string, table: string): string {
  return withBlock(doc, "docs/operating.md", [START, END], ["", ...table.split("\n"), ""]);
}

const TRANSPORTS_START =
  "<!-- prettier-ignore-start -->\n<!-- transports:start (written by npm run config:docs from mail/transports.ts) -->";
const TRANSPORTS_END = "<!-- transports:end -->\n<!-- prettier-ignore-end -->";

/**
 * Every row of `mail/transports.ts`: the variable that turns it on, what it needs beside it, what
 * it is, and what `npm run doctor` asks DNS for its mail (read from the row's own DNS rules).
 */
export function transportsTable(): string {
  const out = [
    "| set | and | mail goes through | what `npm run doctor` checks in DNS |",
    "| --- | --- | --- | --- |",
  ];
  for (const row of TRANSPORTS) {
    const dns = row.dns(exampleValue(row));
    if (!dns) throw new Error(`${row.variable}'s example "${row.example}" is not a value it reads`);
    const plain = dns.envelopeDomain("<domain>", undefined);
    const withBounce = dns.envelopeDomain("<domain>", "<BOUNCE_ADDRESS's domain>");
    const code = (text: string) => `\`${text}\``;
    const at =
      typeof plain !== "string"
        ? `${code(withBounce as string)} (else not checked: ${plain.unknown.split(",")[0]})`
        : plain === withBounce
          ? code(plain)
          : `${code(withBounce as string)}, else ${code(plain)}`;
    const checks = [
      `SPF at ${at} naming ${"host" in dns.spf ? "the server (its provider's include, or its IPs)" : code(`include:${dns.spf.include}`)}`,
      ...(dns.bounceMx ? [`an MX there ending in ${code(dns.bounceMx.hostEnding)}`] : []),
      `DKIM at ${dns.dkim.selectors.map((selector) => `${code(`${selector}._domainkey.<domain>`)} or `).join("")}the selectors of ${code("DKIM_SELECTOR")}`,
      ...(dns.reverseDnsHost ? ["reverse DNS of the server's IPs"] : []),
      "DMARC",
    ];
    out.push(
      `| \`${row.variable}\` | ${row.needs.map((name) => `\`${name}\``).join(", ") || "nothing else"} | ${cell(row.about)} | ${cell(checks.join("; "))} |`,
    );
  }
  return out.join("\n");
}

/** The doc with its transports' table replaced by `mail/transports.ts`'s; throws when the markers are missing. */
export function withTransportsTable(doc: string, table: string): string {
  return withBlock(
    doc,
    "docs/operating.md",
    [TRANSPORTS_START, TRANSPORTS_END],
    ["", ...table.split("\n"), ""],
  );
}

const FUNCTIONS_START = "<!-- functions:start (written by npm run config:docs from manifest.ts) -->";
const FUNCTIONS_END = "<!-- functions:end -->";

/** Every function the manifest declares: its routes, the settings it needs on Supabase, what it is for. */
export function functionsTable(): string {
  const out = [
    "| function | routes under `/functions/v1` | needs on Supabase | what it does |",
    "| --- | --- | --- | --- |",
  ];
  for (const entry of FUNCTIONS) {
    // A function starts with its whole feature (`createBackend`), so it needs what the feature does.
    const { variables, mail } = hostedRequirements([entry.feature]);
    const needs = [...variables.map((name) => `\`${name}\``), ...(mail ? ["a mail transport"] : [])];
    out.push(
      `| \`${entry.name}\` | ${entry.routes.map((route) => `\`${route}\``).join(", ")} | ${needs.join(", ") || "nothing"} | ${cell(entry.purpose)} |`,
    );
  }
  return out.join("\n");
}

/** docs/architecture.md with its functions' table replaced by the manifest's. */
export function withFunctionsTable(doc: string, table: string): string {
  return withBlock(
    doc,
    "docs/architecture.md",
    [FUNCTIONS_START, FUNCTIONS_END],
    ["", ...table.split("\n"), ""],
  );
}

const PATHS_START =
  "# deploy-paths:start (written by npm run config:docs from BUILD_FOLDERS and BUILD_FILES, scripts/site-build.ts)";
const PATHS_END = "# deploy-paths:end";

/**
 * The changes on main that start deploy-site.yml: a file the build reads, package.json (the build
 * command and the dependencies) or the workflow itself. Anything else waits for the morning's run.
 */
export function deployPaths(): string[] {
  return [
    ...BUILD_FOLDERS.map((folder) => `${folder}/**`),
    ...BUILD_FILES,
    "package.json",
    `.github/workflows/${path.basename(DEPLOY_SITE_WORKFLOW)}`,
  ];
}

/** deploy-site.yml with its push paths replaced by deployPaths(). */
export function withDeployPaths(workflow: string): string {
  return withBlock(
    workflow,
    ".github/workflows/deploy-site.yml",
    [PATHS_START, PATHS_END],
    deployPaths().map((entry) => `- "${entry}"`),
  );
}

/** supabase/config.toml: one block per function the manifest declares, nothing else to keep in step. */
export function supabaseConfig(): string {
  const out = [
    "# Supabase CLI settings (https://supabase.com/docs/guides/local-development/cli/config), written by",
    "# `npm run config:docs` from supabase/functions/_shared/manifest.ts: edit that file, not this one.",
    "# verify_jwt is off for every function, each for a reason the function covers itself (the",
    "# manifest's opening comment says which). The import map resolves the npm packages.",
    'project_id = "purpose-effect"',
  ];
  for (const entry of FUNCTIONS)
    out.push(
      "",
      `# ${entry.purpose}`,
      `[functions.${entry.name}]`,
      `verify_jwt = ${entry.verifyJwt}`,
      'import_map = "./functions/deno.json"',
    );
  return `${out.join("\n")}\n`;
}

if (require.main === module) {
  writeFileSync(ENV_EXAMPLE, envExample());
  writeFileSync(SUPABASE_CONFIG, supabaseConfig());
  writeFileSync(
    OPERATING_DOC,
    withTransportsTable(
      withTable(readFileSync(OPERATING_DOC, "utf8"), configurationTable()),
      transportsTable(),
    ),
  );
  writeFileSync(
    ARCHITECTURE_DOC,
    withFunctionsTable(readFileSync(ARCHITECTURE_DOC, "utf8"), functionsTable()),
  );
  writeFileSync(DEPLOY_SITE_WORKFLOW, withDeployPaths(readFileSync(DEPLOY_SITE_WORKFLOW, "utf8")));
  console.log(
    `wrote ${path.relative(ROOT, ENV_EXAMPLE)}, ${path.relative(ROOT, SUPABASE_CONFIG)}, the tables in ${path.relative(ROOT, OPERATING_DOC)}, the functions in ${path.relative(ROOT, ARCHITECTURE_DOC)} and the paths in ${path.relative(ROOT, DEPLOY_SITE_WORKFLOW)}`,
  );
}
