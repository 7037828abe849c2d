/**
 * docs/deploying.md can be followed line by line. Every command in it (each line of its ```sh
 * blocks, and each `npm`, `npx` or `supabase` command in its text) is checked, and a command that
 * nothing checks fails the test, so the doc cannot gain one unchecked:
 * - `npm run X [-- ARGS]`: X is a script in package.json, and its arguments pass the command's own
 *   parser;
 * - `npx supabase ...` and `supabase ...`: a command and flags the pinned CLI knows (its `--help`,
 *   offline), and `npx supabase` itself is the version package.json pins;
 * - run for real, as the owner runs them, in a folder laid out as their checkout: `npm run secrets`
 *   (the key made once and kept, the file readable by its owner only and ignored by git),
 *   `npx supabase secrets set --env-file` against a stand-in of Supabase's Management API,
 *   `npx supabase db push` against a throwaway PostgreSQL, the schedule on a PostgreSQL with
 *   stand-ins of Vault, pg_cron and pg_net, and the doctor's line with the file's settings.
 * Login, link and functions deploy reach Supabase itself and are only checked against the CLI.
 * The limits the doc states are held to the gateway stand-in's and send-effect's own.
 */
import { execFile, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv, promisify } from "node:util";
import { variable, type Variable, VARIABLES } from "../../supabase/functions/_shared/contract/variables.ts";
import {
  RUNTIME_CPU_SOFT_LIMIT_MS,
  WORKER_CPU_CEILING_MS,
} from "../../supabase/functions/_shared/cpu-clock.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { parseReportCommand } from "../../server/report-command.ts";
import { parseReportMailCommand } from "../../server/report-mail-command.ts";
import { parseCommand as parseSubscribersCommand } from "../../server/subscriber-commands.ts";
import { createTestDatabase, testPostgresUrl } from "../../test/support/databases.ts";
import { readBody, serveOnLoopback } from "../../test/support/loopback-http.ts";
import { ROOT } from "../../test/support/stack.ts";
import { SUPABASE_LIMITS } from "../../test/support/supabase-gateway.ts";
import { layCliProject, SUPABASE_CLI, supabaseOnDatabase } from "../../test/support/supabase-cli.ts";
import { parseCommandLine as parseEffectCommand } from "../effect.ts";
import { parseSecretsCommand, SETTINGS_FILE } from "../secrets.ts";

const execFileAsync = promisify(execFile);
const DOC = readFileSync(path.join(ROOT, "docs/deploying.md"), "utf8");
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** What the doc's placeholders stand for when a command is parsed or run. */
const PROJECT_REF = "abcdefghijklmnopqrst";
const fillIn = (word: string) =>
  word.replaceAll("YOUR-PROJECT-REF", PROJECT_REF).replace(/^(YYYY-MM-DD|DATE)$/, "2026-11-23");

// --- Reading the commands out of a Markdown text --------------------------------------------

interface DocCommand {
  text: string;
  line: number;
}

/** A shell line without its comment: a `#` after a space, outside quotes. */
function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === "#" && (at === 0 || /\s/.test(line[at - 1]))) return line.slice(0, at).trimEnd();
  }
  return line.trimEnd();
}

/** A span of text that is a command: `npm`, `npx` or `supabase`, after any VAR=value, or a subshell. */
const COMMAND = /^\(?(?:[A-Z][A-Z0-9_]*=\S+\s+)*(?:npm|npx|supabase)\s/;

export function docCommands(markdown: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const prose: string[] = [];
  let fence: "sh" | "other" | null = null;
  let pending = "";
  let pendingLine = 0;
  markdown.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith("```")) {
      fence = fence ? null : line === "```sh" ? "sh" : "other";
      prose.push("");
      return;
    }
    if (!fence) {
      prose.push(raw);
      return;
    }
    prose.push("");
    if (fence !== "sh") return;
    const code = withoutComment(line);
    if (!pending) pendingLine = index + 1;
    if (code.endsWith("\\")) {
      pending += `${code.slice(0, -1)} `;
      return;
    }
    pending += code;
    if (pending.trim()) commands.push({ text: pending.replace(/\s+/g, " ").trim(), line: pendingLine });
    pending = "";
  });
  const text = prose.join("\n");
  for (const match of text.matchAll(/`([^`]+)`/g)) {
    const span = match[1].replace(/\s+/g, " ").trim();
    if (COMMAND.test(`${span} `))
      commands.push({ text: span, line: text.slice(0, match.index).split("\n").length });
  }
  return commands;
}

/** A command's simple commands (split at `;` and `&&`, a subshell's parentheses dropped), as words. */
export function shellWords(command: string): string[][] {
  const parts: string[][] = [[]];
  let word: string | null = null;
  let quote: string | null = null;
  const end = () => {
    if (word !== null) parts[parts.length - 1].push(word);
    word = null;
  };
  for (let at = 0; at < command.length; at++) {
    const char = command[at];
    if (quote) {
      if (char === quote) quote = null;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (/\s/.test(char) || char === "(" || char === ")") end();
    else if (char === ";" || (char === "&" && command[at + 1] === "&")) {
      end();
      if (char === "&") at++;
      parts.push([]);
    } else word = (word ?? "") + char;
  }
  end();
  return parts.filter((part) => part.length > 0);
}

// --- Checking a command ----------------------------------------------------------------------

/** Each npm script that takes arguments, and its own parser of them. */
const ARGUMENT_PARSERS: Record<string, (args: string[]) => unknown> = {
  effect: parseEffectCommand,
  subscribers: parseSubscribersCommand,
  secrets: parseSecretsCommand,
  // `mail` and `preview` first (scripts/report-mail.ts), else the page's options.
  report: (args) => parseReportMailCommand(args) ?? parseReportCommand(args),
};

/** Commands the doc may name that cannot be checked here, each with the reason. */
const NOT_CHECKED_HERE: Record<string, string> = {
  "npx netlify-cli deploy --dir=public --prod":
    "Netlify's CLI is no dependency: the owner who moves to Netlify writes it into deploy-site.yml",
};

const cliEnv = (home: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  SUPABASE_HOME: home,
  SUPABASE_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
});

const helpOf = new Map<string, string>();
/** The pinned CLI's help for `words`, run in an empty folder. */
function cliHelp(words: string[]): string {
  const key = words.join(" ");
  if (!helpOf.has(key)) {
    const dir = mkdtempSync(path.join(tmpdir(), "supabase-help-"));
    try {
      const run = spawnSync(SUPABASE_CLI, [...words, "--help"], {
        cwd: dir,
        env: cliEnv(dir),
        encoding: "utf8",
      });
      helpOf.set(key, `${run.stdout}${run.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return helpOf.get(key) as string;
}

/** What the pinned CLI would refuse in `supabase ARGS`: an unknown command or flag, an argument it takes none of. */
function cliProblems(args: string[]): string[] {
  if (args.length === 0) {
    const version = spawnSync(SUPABASE_CLI, ["--version"], { encoding: "utf8" }).stdout.trim();
    return version === PACKAGE.devDependencies.supabase
      ? []
      : [`npx supabase is ${version}, package.json pins ${PACKAGE.devDependencies.supabase}`];
  }
  const firstNotWord = args.findIndex((arg) => !/^[a-z][a-z-]*$/.test(arg));
  const words = firstNotWord === -1 ? args : args.slice(0, firstNotWord);
  const help = cliHelp(words);
  const usage = /USAGE\n\s+supabase ([^\n]+)/.exec(help)?.[1];
  if (!usage) return [`supabase ${words.join(" ")}: no usage in its help`];
  const command = usage.split(" ").filter((word) => /^[a-z][a-z-]*$/.test(word));
  if (/<subcommand>/.test(usage) || command.some((word, index) => args[index] !== word))
    return [`supabase ${words.join(" ")} is not a command of the pinned CLI (${usage})`];
  const flags = new Map(
    [...help.matchAll(/^\s+(--[a-z][a-z-]*)(?:, -\w)?(?:\s+(string|integer|choice|<[^>]+>))?\s{2,}/gm)].map(
      (match) => [match[1], match[2] !== undefined],
    ),
  );
  const problems: string[] = [];
  const rest = args.slice(command.length);
  for (let at = 0; at < rest.length; at++) {
    const [flag, inline] = rest[at].split("=", 2);
    if (flag.startsWith("--")) {
      if (!flags.has(flag)) problems.push(`supabase ${command.join(" ")} has no flag ${flag}`);
      else if (flags.get(flag) && inline === undefined) at++;
    } else if (!usage.includes("[<"))
      problems.push(`supabase ${command.join(" ")} takes no argument ("${rest[at]}")`);
  }
  return problems;
}

/** The command's program and arguments, after any VAR=value. */
const programOf = (words: string[]) =>
  words.filter((word, index) => !words.slice(0, index + 1).every((one) => /^[A-Z][A-Z0-9_]*=/.test(one)));

/** What is wrong with one simple command, or that nothing here checks it. */
function commandProblems(words: string[]): string[] {
  const [program, ...args] = programOf(words);
  if (program === "npx" && args[0] === "supabase") return cliProblems(args.slice(1));
  if (program === "supabase") return cliProblems(args);
  if (program === "npm" && args[0] === "install")
    return readFileSync(path.join(ROOT, ".ci/run"), "utf8").includes("npm install")
      ? []
      : ["npm install: .ci/run no longer installs that way"];
  if (program === "npm" && (args[0] === "run" || args[0] === "test" || args[0] === "start")) {
    // `npm run --silent X` prints only what X prints.
    const named =
      args[0] === "run" ? args.slice(1).filter((arg, index) => index > 0 || arg !== "--silent") : args;
    const [script, ...rest] = named;
    if (!(script in PACKAGE.scripts)) return [`npm run ${script}: package.json has no such script`];
    if (rest.length === 0) return [];
    if (rest[0] !== "--") return [`npm run ${script} ${rest.join(" ")}: arguments go after --`];
    const parse = ARGUMENT_PARSERS[script];
    if (!parse) return [`npm run ${script} ${rest.join(" ")}: nothing checks its arguments`];
    try {
      parse(rest.slice(1).map(fillIn));
      return [];
    } catch (error) {
      return [`npm run ${script} ${rest.join(" ")}: ${(error as Error).message}`];
    }
  }
  return [`${words.join(" ")}: nothing checks this command`];
}

// --- The owner's checkout, and the stand-ins ----------------------------------------------------

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
const temporaryDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** A folder laid out as the owner's clone after `npm install`: its own git, the code linked in. */
function ownerCheckout(gitignore = readFileSync(path.join(ROOT, ".gitignore"), "utf8")): string {
  const dir = temporaryDir("checkout-");
  spawnSync("git", ["init", "--quiet"], { cwd: dir });
  writeFileSync(path.join(dir, ".gitignore"), gitignore);
  copyFileSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
  for (const linked of ["node_modules", "scripts"])
    symlinkSync(path.join(ROOT, linked), path.join(dir, linked));
  layCliProject(dir, path.join(ROOT, "supabase/migrations"));
  for (const linked of ["functions", "sql"])
    symlinkSync(path.join(ROOT, "supabase", linked), path.join(dir, "supabase", linked));
  return dir;
}

/** One simple command of the doc, run as the owner types it (placeholders filled in) in `cwd`. */
async function ownerRuns(command: string, cwd: string, env: NodeJS.ProcessEnv = {}) {
  const [words] = shellWords(command);
  const assignments = words.filter((word) => /^[A-Z][A-Z0-9_]*=/.test(word));
  const [program, ...args] = words.slice(assignments.length).map(fillIn);
  const base = { ...process.env };
  delete base.DATABASE_URL;
  return execFileAsync(program, args, {
    cwd,
    encoding: "utf8",
    env: { ...base, ...Object.fromEntries(assignments.map((word) => word.split(/=(.*)/s, 2))), ...env },
  });
}

const settingsOf = (checkout: string) =>
  parseEnv(readFileSync(path.join(checkout, SETTINGS_FILE), "utf8")) as Record<string, string>;

/** Fills settings in as the owner does: a commented-out line uncommented with the value. */
function fillSettings(checkout: string, values: Record<string, string>): void {
  const file = path.join(checkout, SETTINGS_FILE);
  let text = readFileSync(file, "utf8");
  for (const [name, value] of Object.entries(values))
    text = text.replace(`# ${name}=\n`, `${name}=${value}\n`);
  writeFileSync(file, text);
}

/** What an owner fills in, quoted as the file's own example says. */
const OWNER_VALUES = {
  SITE_URL: "https://www.your-site.example",
  MAIL_FROM: '"Effect of the Day <hello@your-site.example>"',
  SMTP_URL: "'smtps://USER:PASSWORD@smtp.your-provider.example:465'",
  SEND_AT: "06:30",
};

/** The doc's commands that are run for real below, so a change to one of them is noticed here. */
const RUN_HERE = {
  write: "npm run secrets",
  dsn: "npm run secrets -- --dsn",
  set: "npx supabase secrets set --env-file supabase/.env.production",
  push: "npx supabase db push",
  schedule: "DATABASE_URL='postgresql://...' npm run secrets -- schedule --project-ref YOUR-PROJECT-REF",
  print: "npm run --silent secrets -- schedule --project-ref YOUR-PROJECT-REF",
  doctor:
    "(set -a; . supabase/.env.production; SUPABASE_URL=https://YOUR-PROJECT-REF.supabase.co npm run doctor)",
};

/**
 * Vault, pg_cron and pg_net as Supabase has them, by their signatures: each records what it was
 * asked, and pg_cron's and pg_net's are registered as those extensions, so the schedule's
 * `create extension if not exists` finds them as on a project that has them on.
 */
const SUPABASE_STAND_INS = `
  create schema vault;
  create table vault.secrets (
    id uuid primary key default gen_random_uuid(),
    name text,
    description text not null default '',
    secret text not null,
    key_id uuid,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  );
  create unique index secrets_name_idx on vault.secrets (name) where name is not null;
  create view vault.decrypted_secrets as select *, secret as decrypted_secret from vault.secrets;
  create function vault.create_secret(
    new_secret text, new_name text default null, new_description text default '', new_key_id uuid default null
  ) returns uuid language sql as $$
    insert into vault.secrets (secret, name, description, key_id)
    values (new_secret, new_name, new_description, new_key_id) returning id
  $$;
  create function vault.update_secret(
    secret_id uuid, new_secret text default null, new_name text default null,
    new_description text default null, new_key_id uuid default null
  ) returns void language sql as $$
    update vault.secrets set secret = coalesce(new_secret, secret), name = coalesce(new_name, name),
      description = coalesce(new_description, description), key_id = coalesce(new_key_id, key_id),
      updated_at = now()
    where id = secret_id
  $$;

  create schema cron;
  create table cron.job (jobid bigserial primary key, jobname text unique, schedule text not null, command text not null);
  create function cron.schedule(job_name text, schedule text, command text) returns bigint language sql as $$
    insert into cron.job (jobname, schedule, command) values (job_name, schedule, command)
    on conflict (jobname) do update set schedule = excluded.schedule, command = excluded.command
    returning jobid
  $$;

  create schema net;
  create table net.requests (id bigserial primary key, url text, body jsonb, headers jsonb, timeout_milliseconds int);
  create function net.http_post(
    url text, body jsonb default '{}', params jsonb default '{}',
    headers jsonb default '{"Content-Type": "application/json"}', timeout_milliseconds int default 5000
  ) returns bigint language sql as $$
    insert into net.requests (url, body, headers, timeout_milliseconds)
    values (url, body, headers, timeout_milliseconds) returning id
  $$;

  insert into pg_extension (oid, extname, extowner, extnamespace, extrelocatable, extversion)
  values (pg_nextoid('pg_extension', 'oid', 'pg_extension_oid_index'), 'pg_cron',
    (select oid from pg_roles where rolname = current_user), 'cron'::regnamespace, false, 'stand-in');
  insert into pg_extension (oid, extname, extowner, extnamespace, extrelocatable, extversion)
  values (pg_nextoid('pg_extension', 'oid', 'pg_extension_oid_index'), 'pg_net',
    (select oid from pg_roles where rolname = current_user), 'net'::regnamespace, false, 'stand-in');
`;

/** The schedule as the project's database then holds it, and one call of its job, as pg_cron makes it. */
async function scheduleIn(db: SqlExecutor) {
  const jobs = await db.query<{ jobname: string; schedule: string; command: string }>(
    `select jobname, schedule, command from cron.job`,
  );
  const secrets = await db.query<{ name: string; decrypted_secret: string }>(
    `select name, decrypted_secret from vault.decrypted_secrets order by name`,
  );
  await db.exec(`truncate net.requests`);
  for (const job of jobs) await db.exec(job.command);
  const [call] = await db.query<{ url: string; authorization: string }>(
    `select url, headers->>'Authorization' as authorization from net.requests`,
  );
  return { jobs: jobs.map(({ jobname, schedule }) => ({ jobname, schedule })), secrets, call };
}

// --- The tests ---------------------------------------------------------------------------------

describe("the commands of docs/deploying.md", () => {
  const commands = docCommands(DOC);

  it("are found in its blocks and its text", () => {
    expect(commands.map((command) => command.text)).toEqual(expect.arrayContaining(Object.values(RUN_HERE)));
    expect(commands.map((command) => command.text)).toContain("npx supabase functions deploy");
  });

  it("each name a script, a CLI command and flags that exist, or are run here", () => {
    const runHere: string[] = Object.values(RUN_HERE);
    const problems = commands.flatMap(({ text, line }) => {
      if (text in NOT_CHECKED_HERE) return [];
      // A line run here as a whole is checked by that run; its npm and CLI commands here too.
      const parts = shellWords(text).filter(
        (words) => !runHere.includes(text) || /^(npm|npx|supabase)$/.test(programOf(words)[0]),
      );
      return parts.flatMap(commandProblems).map((problem) => `line ${line}: ${problem}`);
    });
    expect(problems).toEqual([]);
  });

  it("fail the check when the doc gains one nobody checks, or a script, command or flag that is not there", () => {
    const doc = [
      "```sh",
      "curl -fsS https://example.com/install.sh   # a comment",
      "npm run no-such-script",
      "npx supabase functions frob",
      "npx supabase db push --no-such-flag",
      "```",
      "Then `npm run effect -- launch 2026-11-23` and `npx supabase secrets set --env-file`.",
    ].join("\n");
    const found = docCommands(doc);
    expect(found.map((command) => command.text)).toEqual([
      "curl -fsS https://example.com/install.sh",
      "npm run no-such-script",
      "npx supabase functions frob",
      "npx supabase db push --no-such-flag",
      "npm run effect -- launch 2026-11-23",
      "npx supabase secrets set --env-file",
    ]);
    for (const { text } of found.slice(0, 5))
      expect(shellWords(text).flatMap(commandProblems)).not.toEqual([]);
  });
});

describe("the owner's settings file, npm run secrets", () => {
  it("is made once, readable by its owner only and ignored by git, and keeps every value on the next run", async () => {
    const checkout = ownerCheckout();
    const first = await ownerRuns(RUN_HERE.write, checkout);
    const file = path.join(checkout, SETTINGS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(spawnSync("git", ["check-ignore", SETTINGS_FILE], { cwd: checkout }).status).toBe(0);
    const key = settingsOf(checkout).SEND_EFFECT_KEY;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    // Nothing set but the key: every other setting waits, commented out, under what it does.
    expect(Object.keys(settingsOf(checkout))).toEqual(["SEND_EFFECT_KEY"]);
    expect(readFileSync(file, "utf8")).toMatch(/^# SITE_URL \(required\): Where the links in mail point/m);
    expect(first.stdout).toMatch(/✗ .*would not start: SITE_URL must be set on Supabase/);
    expect(first.stdout).toContain(`Fill in ${SETTINGS_FILE} and run npm run secrets again`);

    fillSettings(checkout, OWNER_VALUES);
    chmodSync(file, 0o644);
    const filled = readFileSync(file, "utf8");
    const second = await ownerRuns(RUN_HERE.write, checkout);
    expect(readFileSync(file, "utf8")).toBe(filled);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(second.stdout).toContain(`${SETTINGS_FILE} kept as it was.`);
    expect(second.stdout).not.toMatch(/✗/);
    expect(second.stdout).toContain(`Then: npx supabase secrets set --env-file ${SETTINGS_FILE}`);

    await ownerRuns(RUN_HERE.dsn, checkout);
    expect(settingsOf(checkout)).toMatchObject({
      SEND_EFFECT_KEY: key,
      SITE_URL: "https://www.your-site.example",
      DSN_WEBHOOK_SECRET: expect.stringMatching(/^[0-9a-f]{64}$/),
      BOUNCE_TOKEN_KEY: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("lists every setting a function reads on Supabase that the owner sets", async () => {
    const checkout = ownerCheckout();
    await ownerRuns(RUN_HERE.write, checkout);
    const named = [
      ...readFileSync(path.join(checkout, SETTINGS_FILE), "utf8").matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm),
    ].map((match) => match[1]);
    const hosted = (VARIABLES as readonly Variable[]).filter((entry) =>
      entry.readers.some((reader) => reader === "functions" || reader === "send-effect"),
    );
    // Those that only point a function at the tests' stand-ins say so, and are left out.
    const standIns = hosted.filter((entry) => entry.standIn);
    for (const entry of standIns) expect(entry.description).toContain("the tests' stand-in");
    expect(named).toEqual(
      expect.arrayContaining(["SEND_EFFECT_KEY", "SITE_URL", "RESEND_API_KEY", "SEND_AT"]),
    );
    const missing = hosted.map((entry) => entry.name).filter((name) => !named.includes(name));
    expect(missing.sort()).toEqual(
      [
        ...standIns.map((entry) => entry.name),
        "DATABASE_URL",
        "FUNCTION_PORT",
        "SUPABASE_DB_URL",
        "SUPABASE_URL",
      ].sort(),
    );
  });

  it("refuses to write secrets where git would take them", async () => {
    const checkout = ownerCheckout("node_modules/\n");
    await expect(ownerRuns(RUN_HERE.write, checkout)).rejects.toMatchObject({
      stderr: expect.stringContaining(`${SETTINGS_FILE} is not ignored by git here`),
    });
    expect(readdirSync(path.join(checkout, "supabase"))).not.toContain(".env.production");
  });

  it("is what `npx supabase secrets set --env-file` sets on the project, each uncommented line and no other", async () => {
    const checkout = ownerCheckout();
    await ownerRuns(RUN_HERE.write, checkout);
    fillSettings(checkout, OWNER_VALUES);
    // Supabase's Management API on loopback, in a CLI profile of its own (the CLI's --profile file).
    const posted: { url: string; body: unknown }[] = [];
    const api = await serveOnLoopback(async (request, response) => {
      const body = (await readBody(request)).toString();
      if (request.method === "POST") posted.push({ url: request.url ?? "", body: JSON.parse(body) });
      response.writeHead(request.method === "POST" ? 201 : 200, { "content-type": "application/json" });
      response.end(request.method === "POST" ? "{}" : "[]");
    });
    cleanups.push(() => api.close());
    const home = temporaryDir("supabase-home-");
    const profile = path.join(home, "stand-in.yaml");
    writeFileSync(
      profile,
      `name: stand-in\napi_url: ${api.url}\ndashboard_url: ${api.url}/dashboard\nproject_host: supabase.co\n`,
    );
    await ownerRuns(`${RUN_HERE.set} --project-ref ${PROJECT_REF} --profile ${profile}`, checkout, {
      ...cliEnv(home),
      SUPABASE_ACCESS_TOKEN: `sbp_${"0123456789abcdef".repeat(3).slice(0, 40)}`,
    });
    expect(posted.map((one) => one.url)).toEqual([`/v1/projects/${PROJECT_REF}/secrets`]);
    const byName = (list: { name: string; value: string }[]) =>
      [...list].sort((a, b) => a.name.localeCompare(b.name));
    expect(byName(posted[0].body as { name: string; value: string }[])).toEqual(
      byName(Object.entries(settingsOf(checkout)).map(([name, value]) => ({ name, value }))),
    );
    expect(settingsOf(checkout)).toMatchObject({
      MAIL_FROM: "Effect of the Day <hello@your-site.example>",
      SMTP_URL: "smtps://USER:PASSWORD@smtp.your-provider.example:465",
    });
  });

  it("reaches `npm run doctor` through the doc's line, every value as the CLI sets it", async () => {
    const checkout = ownerCheckout();
    await ownerRuns(RUN_HERE.write, checkout);
    fillSettings(checkout, OWNER_VALUES);
    // An npm that writes down what it was run with, in place of the doctor (which asks DNS and the project).
    const bin = temporaryDir("npm-");
    writeFileSync(
      path.join(bin, "npm"),
      '#!/bin/sh\nprintf "%s\\n" "$@" > "$CAPTURE.args"\nenv -0 > "$CAPTURE.env"\n',
    );
    chmodSync(path.join(bin, "npm"), 0o755);
    const capture = path.join(bin, "capture");
    const run = spawnSync("bash", ["-c", RUN_HERE.doctor], {
      cwd: checkout,
      env: { PATH: `${bin}:${process.env.PATH}`, CAPTURE: capture },
      encoding: "utf8",
    });
    expect(run.status).toBe(0);
    expect(readFileSync(`${capture}.args`, "utf8")).toBe("run\ndoctor\n");
    const env = Object.fromEntries(
      readFileSync(`${capture}.env`, "utf8")
        .split("\0")
        .filter(Boolean)
        .map((entry) => entry.split(/=(.*)/s, 2)),
    );
    expect(env).toMatchObject({
      ...settingsOf(checkout),
      SUPABASE_URL: "https://YOUR-PROJECT-REF.supabase.co",
    });
  });
});

const serverUrl = testPostgresUrl();
(serverUrl ? describe : describe.skip)("on PostgreSQL", () => {
  async function database(standIns: boolean): Promise<{ url: string; db: SqlExecutor }> {
    const created = await createTestDatabase(serverUrl as string);
    const db = createPostgresExecutor(created.url, { max: 2 });
    cleanups.push(() => created.drop());
    cleanups.push(() => db.close());
    if (standIns) await db.exec(SUPABASE_STAND_INS);
    return { url: created.url, db };
  }

  it("`npx supabase db push` applies every migration, as the pinned CLI records them", async () => {
    const checkout = ownerCheckout();
    const { url, db } = await database(false);
    // The doc's command on a linked project; here the same command given the database itself.
    const [words] = shellWords(RUN_HERE.push);
    await supabaseOnDatabase(checkout, [...words.slice(2), "--yes"], url);
    const versions = await db.query<{ version: string }>(
      `select version from supabase_migrations.schema_migrations order by version`,
    );
    expect(versions.map((row) => row.version)).toEqual(
      readdirSync(path.join(ROOT, "supabase/migrations"))
        .filter((name) => name.endsWith(".sql"))
        .sort()
        .map((name) => name.split("_")[0]),
    );
  });

  it("the schedule calls send-effect every 10 seconds with the file's key, and a second run adds no job nor secret", async () => {
    const checkout = ownerCheckout();
    await ownerRuns(RUN_HERE.write, checkout);
    const { url, db } = await database(true);
    const schedule = (environment: NodeJS.ProcessEnv) => ownerRuns(RUN_HERE.schedule, checkout, environment);
    const applied = await schedule({ DATABASE_URL: url });
    expect(applied.stdout).toContain(
      `calls https://${PROJECT_REF}.supabase.co/functions/v1/send-effect every 10 seconds`,
    );
    await schedule({ DATABASE_URL: url });
    const key = settingsOf(checkout).SEND_EFFECT_KEY;
    const expected = {
      jobs: [{ jobname: "send-effect", schedule: "10 seconds" }],
      secrets: [
        { name: "project_url", decrypted_secret: `https://${PROJECT_REF}.supabase.co` },
        { name: "send_effect_key", decrypted_secret: key },
      ],
      call: {
        url: `https://${PROJECT_REF}.supabase.co/functions/v1/send-effect`,
        authorization: `Bearer ${key}`,
      },
    };
    expect(await scheduleIn(db)).toEqual(expected);

    // A new key (its line removed, npm run secrets makes another) reaches Vault in place.
    const file = path.join(checkout, SETTINGS_FILE);
    writeFileSync(file, readFileSync(file, "utf8").replace(/^SEND_EFFECT_KEY=.*$/m, "SEND_EFFECT_KEY="));
    await ownerRuns(RUN_HERE.write, checkout);
    const newKey = settingsOf(checkout).SEND_EFFECT_KEY;
    expect(newKey).toMatch(/^[0-9a-f]{64}$/);
    expect(newKey).not.toBe(key);
    await schedule({ DATABASE_URL: url });
    const after = await scheduleIn(db);
    expect(after.secrets).toHaveLength(2);
    expect(after.call.authorization).toBe(`Bearer ${newKey}`);

    // On a database without Supabase's extensions (another DATABASE_URL), it says so.
    const plain = await database(false);
    await expect(schedule({ DATABASE_URL: plain.url })).rejects.toMatchObject({
      stderr: expect.stringMatching(/is DATABASE_URL your Supabase project's database\?.*pg_cron/),
    });

    // Without DATABASE_URL it prints the same for the SQL editor.
    const printed = await ownerRuns(RUN_HERE.print, checkout);
    const other = await database(true);
    await other.db.exec(printed.stdout);
    expect(await scheduleIn(other.db)).toEqual(after);
  });
});

describe("the platform's limits in docs/deploying.md", () => {
  const section = DOC.slice(DOC.indexOf("## What the platforms' rules mean for you"));
  const number = (value: number) => value.toLocaleString("en-US");

  it("are the gateway stand-in's, send-effect's own and the schedule's", () => {
    expect(section).toContain(`past ${SUPABASE_LIMITS.cpuSoftMs / 1000} s it retires`);
    expect(section).toContain(`past ${SUPABASE_LIMITS.cpuHardMs / 1000} s it is stopped`);
    expect(section).toContain(`${SUPABASE_LIMITS.wallMs / 1000} s of wall clock per worker`);
    expect(section).toContain(`${SUPABASE_LIMITS.memoryMb} MB of memory per worker`);
    expect(section).toContain(
      `\`SEND_EFFECT_CPU_MS\` (${number(Number(variable("SEND_EFFECT_CPU_MS").default))} ms)`,
    );
    expect(section).toContain(`nothing past ${number(WORKER_CPU_CEILING_MS)} ms`);
    expect(section).toContain(`A worker past ${number(RUNTIME_CPU_SOFT_LIMIT_MS)} ms of CPU`);
    const interval = /'(\d+) seconds'/.exec(
      readFileSync(path.join(ROOT, "supabase/sql/schedule-send-effect.sql"), "utf8"),
    )?.[1];
    expect(section).toContain(`every ${interval} seconds`);
    expect(DOC).toContain(`call \`send-effect\` every ${interval} seconds`);
  });
});
