/**
 * `npm run secrets`: the functions' settings for hosted Supabase, in one file readable by its owner
 * only and ignored by git, `supabase/.env.production`, which `npx supabase secrets set --env-file`
 * sets there. What this side makes (SEND_EFFECT_KEY; DSN_WEBHOOK_SECRET and BOUNCE_TOKEN_KEY with `--dsn`) is generated
 * into the file once and never changed: each value is used twice (the function, and the schedule's
 * Vault secret or the inbound-mail route), and Supabase shows a secret once set only as a digest
 * (`supabase secrets list`), so a value made on a command line could not be used again. Every other
 * setting a function reads there is written commented out, with what it does, to fill in; a later run
 * adds what a newer version reads and keeps every line already there. Each run then says whether
 * every function would start with the file, by the checks `npm run doctor` makes.
 *
 * `npm run secrets -- schedule --project-ref REF`: supabase/sql/schedule-send-effect.sql with the
 * file's SEND_EFFECT_KEY and the project's address, run on DATABASE_URL (the project's database)
 * when it is set, else printed for the SQL editor. Running it again replaces the job and the Vault
 * secrets in place.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs, parseEnv } from "node:util";
import {
  type Env,
  readVariable,
  type Variable,
  type VariableName,
  VARIABLES,
} from "../supabase/functions/_shared/contract/variables.ts";
import { createPostgresExecutor, FUNCTIONS } from "../supabase/functions/_shared/hosts.ts";
import { describeDatabaseUrl } from "../server/storage.ts";
import { checkSettings } from "./doctor.ts";

/** Where the settings are kept, from the repository's folder (where `npm run` runs a script). */
export const SETTINGS_FILE = "supabase/.env.production";

export const SCHEDULE_SQL = path.join(__dirname, "../supabase/sql/schedule-send-effect.sql");

/** The schedule file's placeholders, replaced by the key and the address. */
const KEY_PLACEHOLDER = "'PASTE-THE-SEND_EFFECT_KEY-VALUE'";
const URL_PLACEHOLDER = "'https://YOUR-PROJECT-REF.supabase.co'";

/** Made here, 32 random bytes as hex: each also goes where the other side of it is set up. */
const GENERATED: Partial<Record<VariableName, string>> = {
  SEND_EFFECT_KEY: "the schedule sends the same from Vault, where `npm run secrets -- schedule` puts it",
  DSN_WEBHOOK_SECRET:
    "your inbound-mail route sends the same as its bearer token (docs/operating.md, bounces and complaints)",
  BOUNCE_TOKEN_KEY:
    "signs the envelope sender of each mail (BOUNCE_ADDRESS); when you make a new one, move this one to BOUNCE_TOKEN_PREVIOUS_KEY",
};

/**
 * Variables the functions read that are not set through this file, beside those that point them at
 * the tests' stand-ins (`standIn` in the registry): Supabase sets its own, and the last serves a
 * plain `deno run`.
 */
const NOT_SET_HERE: Partial<Record<VariableName, string>> = {
  SUPABASE_URL: "set by Supabase",
  SUPABASE_DB_URL: "set by Supabase",
  DATABASE_URL: "on Supabase the functions use SUPABASE_DB_URL",
  FUNCTION_PORT: "the tests' plain `deno run`",
};

/** Every setting a function reads on Supabase that the owner sets, in the registry's order. */
export const HOSTED_SETTINGS: readonly Variable[] = (VARIABLES as readonly Variable[]).filter(
  (variable) =>
    (variable.readers.some((reader) => reader === "functions" || reader === "send-effect") ||
      variable.group === "Supabase (set there, not locally)") &&
    !variable.standIn &&
    !(variable.name in NOT_SET_HERE),
);

export type SecretsCommand = { action: "write"; dsn: boolean } | { action: "schedule"; projectRef: string };

export class SecretsUsageError extends Error {
  override name = "SecretsUsageError";
}

export const USAGE = `Usage:
  npm run secrets [-- --dsn]
      write ${SETTINGS_FILE}: a new SEND_EFFECT_KEY (with --dsn also DSN_WEBHOOK_SECRET and
      BOUNCE_TOKEN_KEY, for returned mail over SMTP), every
      other setting to fill in; keeps what is there, then checks it as the functions would
  npm run secrets -- schedule --project-ref REF
      the schedule of send-effect with that key and https://REF.supabase.co: run on DATABASE_URL
      when it is set, else printed for the SQL editor`;

export function parseSecretsCommand(args: string[]): SecretsCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { dsn: { type: "boolean" }, "project-ref": { type: "string" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new SecretsUsageError((error as Error).message);
  }
  const { positionals, values } = parsed;
  if (positionals.length === 0) {
    if (values["project-ref"] !== undefined) throw new SecretsUsageError("--project-ref goes with schedule");
    return { action: "write", dsn: values.dsn ?? false };
  }
  if (positionals.length > 1 || positionals[0] !== "schedule")
    throw new SecretsUsageError(`unknown command "${positionals.join(" ")}"`);
  if (values.dsn) throw new SecretsUsageError("--dsn goes with writing the file, not with schedule");
  const projectRef = values["project-ref"];
  if (!projectRef) throw new SecretsUsageError("schedule needs --project-ref (from https://REF.supabase.co)");
  // The Supabase CLI's own rule for a project ref.
  if (!/^[a-z]{20}$/.test(projectRef))
    throw new SecretsUsageError(
      `"${projectRef}" is not a project ref: 20 lowercase letters, from https://REF.supabase.co`,
    );
  return { action: "schedule", projectRef };
}

/** `text` as comment lines of at most `width` characters. */
function commentLines(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/)) {
    if (line.length > 1 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** What some function cannot start without on Supabase (the manifest's `requires`). */
const REQUIRED = new Set<string>(FUNCTIONS.flatMap((entry) => entry.requires));

/** A setting to fill in: what it does, and its line commented out (with its default, if it has one). */
function settingBlock(variable: Variable): string[] {
  const about = [
    `${variable.name}${REQUIRED.has(variable.name) ? " (required)" : ""}: ${variable.description}`,
    ...(variable.default === undefined && variable.unset ? [`Unset: ${variable.unset}.`] : []),
  ].join(" ");
  return ["", ...commentLines(about), `# ${variable.name}=${variable.default ?? ""}`];
}

function generatedBlock(name: VariableName, value: string): string[] {
  return [
    "",
    ...commentLines(`${name}, made by npm run secrets; keep it: ${GENERATED[name]}.`),
    `${name}=${value}`,
  ];
}

const HEADER = [
  `# The functions' settings on Supabase: \`npx supabase secrets set --env-file ${SETTINGS_FILE}\``,
  "# sets each line that is not a comment. Written by `npm run secrets`, which adds what is missing and",
  "# keeps every value here; ignored by git and readable by you only, as it holds secrets. Quote a",
  '# value with spaces: MAIL_FROM="Effect of the Day <hello@your-site.example>". Unfilled lines stay',
  "# commented out: an empty value would be set as empty.",
];

/** The names the file has a line for, set or commented out. */
const namesIn = (text: string) =>
  new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));

export interface WriteReport {
  created: boolean;
  generated: VariableName[];
  added: VariableName[];
}

/**
 * Writes or completes the settings file: a value already set is never changed; a generated secret
 * that is missing or empty is made; a setting without a line gets one, commented out.
 */
export function writeSettingsFile(
  file: string,
  dsn: boolean,
  random = () => randomBytes(32).toString("hex"),
): WriteReport {
  const created = !existsSync(file);
  const before = created ? "" : readFileSync(file, "utf8");
  const values = parseEnv(before);
  const present = namesIn(before);
  const wanted: VariableName[] = dsn
    ? ["SEND_EFFECT_KEY", "DSN_WEBHOOK_SECRET", "BOUNCE_TOKEN_KEY"]
    : ["SEND_EFFECT_KEY"];
  const generated = wanted.filter((name) => !values[name]);
  let text = created ? HEADER.join("\n") : before.replace(/\n*$/, "");
  for (const name of generated) {
    const line = `${name}=${random()}`;
    // An empty or commented-out line of it takes the value in place; else it is added.
    const empty = new RegExp(`^#?\\s*${name}=\\s*$`, "m");
    text = empty.test(text)
      ? text.replace(empty, line)
      : [text, ...generatedBlock(name, line.slice(name.length + 1))].join("\n");
  }
  const added = HOSTED_SETTINGS.map((variable) => variable.name as VariableName).filter(
    (name) => !present.has(name) && !generated.includes(name),
  );
  for (const name of added)
    text = [text, ...settingBlock(HOSTED_SETTINGS.find((one) => one.name === name) as Variable)].join("\n");
  if (created || generated.length > 0 || added.length > 0) {
    // Written whole, then moved into place: the file is never half there, nor readable by others.
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${text}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  }
  chmodSync(file, 0o600);
  return { created, generated, added };
}

/** Refuses to write secrets where git would take them: the file must be ignored, as .gitignore has it. */
function ensureIgnored(file: string): void {
  const check = spawnSync("git", ["check-ignore", "--quiet", path.basename(file)], {
    cwd: path.dirname(file),
    encoding: "utf8",
  });
  // 0: ignored; 1: not ignored (or tracked); anything else: not a git work tree, nothing to commit it to.
  if (check.status === 1)
    throw new Error(
      `${SETTINGS_FILE} is not ignored by git here (or is tracked), so its secrets could be committed: add it to .gitignore (or git rm --cached it), then run this again`,
    );
}

export function readSettingsFile(file: string): Record<string, string> {
  if (!existsSync(file)) throw new Error(`there is no ${SETTINGS_FILE} here: run \`npm run secrets\` first`);
  return parseEnv(readFileSync(file, "utf8")) as Record<string, string>;
}

const sqlText = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** The schedule's SQL with the key and the address in place of its placeholders. */
export function scheduleSql(key: string, projectUrl: string): string {
  const template = readFileSync(SCHEDULE_SQL, "utf8");
  if (!template.includes(KEY_PLACEHOLDER) || !template.includes(URL_PLACEHOLDER))
    throw new Error(
      `${SCHEDULE_SQL} no longer has the placeholders ${KEY_PLACEHOLDER} and ${URL_PLACEHOLDER}`,
    );
  return template.replaceAll(KEY_PLACEHOLDER, sqlText(key)).replaceAll(URL_PLACEHOLDER, sqlText(projectUrl));
}

async function settingsReport(file: string, report: WriteReport, projectUrl: string): Promise<string> {
  const values = readSettingsFile(file);
  const findings = await checkSettings({ ...values, SUPABASE_URL: projectUrl });
  const marks = { ok: "✓", warn: "!", fail: "✗" } as const;
  const changes = [
    report.created
      ? `Wrote ${SETTINGS_FILE} (readable by you only, ignored by git).`
      : `${SETTINGS_FILE} kept as it was${report.generated.length + report.added.length > 0 ? ", with:" : "."}`,
    ...report.generated.map((name) => `  ${name}: made, ${GENERATED[name]}`),
    ...(report.created
      ? []
      : report.added.map((name) => `  ${name}: a new setting, commented out, to fill in`)),
  ];
  const checks = findings.flatMap((finding) => [
    `${marks[finding.level]} ${finding.text}`,
    ...(finding.fix ? [`  → ${finding.fix}`] : []),
  ]);
  const ready = findings.every((finding) => finding.level !== "fail");
  return [
    ...changes,
    "",
    "What the functions would say of it at start:",
    ...checks,
    "",
    ready
      ? `Then: npx supabase secrets set --env-file ${SETTINGS_FILE}`
      : `Fill in ${SETTINGS_FILE} and run npm run secrets again; then: npx supabase secrets set --env-file ${SETTINGS_FILE}`,
    "",
  ].join("\n");
}

export async function run(args: string[], env: Env = process.env, cwd = process.cwd()): Promise<string> {
  const command = parseSecretsCommand(args);
  if (!existsSync(path.join(cwd, "supabase")))
    throw new Error(`there is no supabase/ folder in ${cwd}: run it from the repository`);
  const file = path.join(cwd, SETTINGS_FILE);
  if (command.action === "write") {
    ensureIgnored(file);
    const report = writeSettingsFile(file, command.dsn);
    // Any https address makes the checks those of hosted Supabase; the real one is not needed here.
    return settingsReport(file, report, "https://your-project-ref.supabase.co");
  }
  const key = readSettingsFile(file).SEND_EFFECT_KEY;
  if (!key) throw new Error(`${SETTINGS_FILE} has no SEND_EFFECT_KEY: run \`npm run secrets\` first`);
  const projectUrl = `https://${command.projectRef}.supabase.co`;
  const sql = scheduleSql(key, projectUrl);
  const databaseUrl = readVariable(env, "DATABASE_URL");
  if (!databaseUrl)
    return [
      "-- Holds SEND_EFFECT_KEY: run it in the SQL editor (Dashboard → SQL Editor) and do not keep it as a snippet.",
      sql,
    ].join("\n");
  const db = createPostgresExecutor(databaseUrl, { max: 1, connectTimeoutMs: 10_000 });
  try {
    await db.exec(sql).catch((error: unknown) => {
      throw new Error(
        `the schedule was not set up on ${describeDatabaseUrl(databaseUrl)} (is DATABASE_URL your Supabase project's database?): ${(error as Error).message}`,
      );
    });
    const jobs = await db.query<{ schedule: string }>(
      `select schedule from cron.job where jobname = 'send-effect'`,
    );
    return `The schedule calls ${projectUrl}/functions/v1/send-effect every ${jobs.map((job) => job.schedule).join(", ")}, with SEND_EFFECT_KEY from ${SETTINGS_FILE} (kept in Vault as send_effect_key).\n`;
  } finally {
    await db.close();
  }
}

if (require.main === module) {
  run(process.argv.slice(2)).then(
    (output) => process.stdout.write(output),
    (error: unknown) => {
      console.error(
        error instanceof SecretsUsageError
          ? `${error.message}\n\n${USAGE}`
          : `secrets: ${error instanceof Error ? error.message : String(error)}`,
      );
      process.exit(error instanceof SecretsUsageError ? 2 : 1);
    },
  );
}
