/**
 * The migration runner, and the one record it shares with the Supabase CLI. On PGlite: name
 * order, each file once, changed files reported, failures rolled back, and a database from before
 * the shared record adopted. On PostgreSQL with the real CLI (`supabase db push`, the pinned
 * devDependency): a database either migrated is up to date for the other, and the owner's
 * commands work on one the CLI migrated, as docs/deploying.md has the owner migrate Supabase's.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { sha256Hex } from "../../supabase/functions/_shared/hosts.ts";
import { run as subscribers } from "../../scripts/subscribers.ts";
import { createTestDatabase, type TestDatabase, testPostgresUrl } from "../../test/support/databases.ts";
import { fixtureEdition, publishEdition, seedConfirmed } from "../../test/support/effect-fixtures.ts";
import { DATA_FOLDERS } from "../../test/support/data-folders.ts";
import { copyEmptyPglite } from "../../test/support/pglite-template.ts";
import { readOutbox, recipients } from "../../test/support/outbox.ts";
import { ROOT } from "../../test/support/stack.ts";
import { layCliProject, supabaseOnDatabase } from "../../test/support/supabase-cli.ts";
import { migrate, MIGRATIONS_DIR, pendingMigrations } from "../migrations.ts";
import { createPgliteExecutor } from "../pglite-executor.ts";
import { splitStatements } from "../sql-statements.ts";
import { pendingMigrationsMessage } from "../storage.ts";

const execFileAsync = promisify(execFile);

const publicTables = async (db: SqlExecutor) =>
  (
    await db.query<{ name: string }>(
      `select table_name as name from information_schema.tables where table_schema = 'public' order by 1`,
    )
  ).map((row) => row.name);

const record = (db: SqlExecutor) =>
  db.query<{ version: string; name: string; statements: string[] | null }>(
    `select version, name, statements from supabase_migrations.schema_migrations order by version`,
  );

const emptyDatabase = (db: SqlExecutor) =>
  db.exec(`
    drop schema public cascade;
    create schema public;
    drop schema if exists supabase_migrations cascade;
  `);

/** What the runner did before it kept the CLI's record: its own table, a checksum per file. */
async function migrateTheOldWay(db: SqlExecutor, dir: string): Promise<void> {
  await db.exec(`
    create table schema_migrations (
      name text primary key,
      checksum text not null,
      applied_at timestamptz not null default now()
    );
    alter table schema_migrations enable row level security;
  `);
  for (const name of readdirSync(dir).sort()) {
    const script = readFileSync(path.join(dir, name), "utf8");
    await db.exec(script);
    await db.query(`insert into schema_migrations (name, checksum) values ($1, $2)`, [
      name,
      await sha256Hex(script),
    ]);
  }
}

describe("on PGlite", () => {
  let db: SqlExecutor;
  let dir: string;
  let cluster: string;
  const write = (name: string, sql: string) => writeFileSync(path.join(dir, name), sql);

  // One PGlite for the tests, a copy of a new cluster (creating one takes seconds), emptied before each.
  beforeAll(async () => {
    cluster = mkdtempSync(path.join(DATA_FOLDERS, "migrations-pglite-"));
    await copyEmptyPglite(path.join(cluster, "pglite"));
    db = await createPgliteExecutor(path.join(cluster, "pglite"));
  });
  afterAll(async () => {
    try {
      await db?.close();
    } finally {
      if (cluster) rmSync(cluster, { recursive: true, force: true });
    }
  });
  beforeEach(async () => {
    await emptyDatabase(db);
    dir = mkdtempSync(path.join(tmpdir(), "migrations-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs with PGlite's 16 MB of shared buffers, not the 128 MB its folder's configuration names", async () => {
    // PostgreSQL clears them at every open (server/pglite-executor.ts): a PGlite that dropped
    // its start parameters would make every command on a data folder slower without a word.
    expect(await db.query("show shared_buffers")).toEqual([{ shared_buffers: "16MB" }]);
  });

  describe("the migration runner", () => {
    it("applies the files in name order, each once, and only new ones on the next start", async () => {
      write("20260101000100_b.sql", "create table b (id int references a (id));");
      write("20260101000000_a.sql", "create table a (id int primary key);");
      expect(await migrate(db, dir)).toEqual({
        applied: ["20260101000000_a.sql", "20260101000100_b.sql"],
        changed: [],
      });

      write("20260101000200_c.sql", "create table c (id int);");
      expect(await migrate(db, dir)).toEqual({ applied: ["20260101000200_c.sql"], changed: [] });
      expect(await publicTables(db)).toEqual(["a", "b", "c"]);
    });

    it("records each file as `supabase db push` does: version, name and statements", async () => {
      write(
        "20260101000000_two_tables.sql",
        "-- Two.\ncreate table a (id int);\n\ncreate table b (id int);\n",
      );
      await migrate(db, dir);
      expect(await record(db)).toEqual([
        {
          version: "20260101000000",
          name: "two_tables",
          statements: ["-- Two.\ncreate table a (id int)", "create table b (id int)"],
        },
      ]);
    });

    it("leaves out a file whose name has no version, as the CLI does", async () => {
      write("seed.sql", "create table seeded (id int);");
      expect(await migrate(db, dir)).toEqual({ applied: [], changed: [] });
      expect(await pendingMigrations(db, dir)).toEqual([]);
      expect(await publicTables(db)).toEqual([]);
    });

    it("reports a file changed after it was applied, without running it again", async () => {
      write("20260101000000_a.sql", "create table a (id int);");
      await migrate(db, dir);
      write("20260101000000_a.sql", "create table a (id int, name text);");
      expect(await migrate(db, dir)).toEqual({ applied: [], changed: ["20260101000000_a.sql"] });
    });

    it("takes neither whitespace nor a statement's closing semicolon for a change", async () => {
      write("20260101000000_a.sql", "create table a (id int);\ncreate table b (id int);\n");
      await migrate(db, dir);
      write("20260101000000_a.sql", "create table a (id int) ;\n\n\tcreate table b (id int)");
      expect(await migrate(db, dir)).toEqual({ applied: [], changed: [] });
    });

    it("rolls a failing file back whole and records nothing for it", async () => {
      write("20260101000000_a.sql", "create table a (id int);\ncreate table a (id int);");
      await expect(migrate(db, dir)).rejects.toThrow(/already exists/);
      expect(await publicTables(db)).toEqual([]);
      expect(await record(db)).toEqual([]);
    });

    it("says which files a database lacks, without making the record", async () => {
      write("20260101000000_a.sql", "create table a (id int);");
      expect(await pendingMigrations(db, dir)).toEqual(["20260101000000_a.sql"]);
      expect(await db.query(`select to_regnamespace('supabase_migrations') as schema`)).toEqual([
        { schema: null },
      ]);
    });
  });

  describe("a database migrated before the runner kept the CLI's record", () => {
    it("has its old record moved to the CLI's and dropped, and nothing applied again", async () => {
      write("20260101000000_a.sql", "create table a (id int);");
      write("20260101000100_b.sql", "create table b (id int);");
      await migrateTheOldWay(db, dir);
      expect(await migrate(db, dir)).toEqual({ applied: [], changed: [] });
      expect(await publicTables(db)).toEqual(["a", "b"]);
      expect(await record(db)).toEqual([
        { version: "20260101000000", name: "a", statements: ["create table a (id int)"] },
        { version: "20260101000100", name: "b", statements: ["create table b (id int)"] },
      ]);
    });

    it("still reports a file that changed after the old record took it", async () => {
      write("20260101000000_a.sql", "create table a (id int);");
      await migrateTheOldWay(db, dir);
      write("20260101000000_a.sql", "create table a (id int, name text);");
      expect(await migrate(db, dir)).toEqual({ applied: [], changed: ["20260101000000_a.sql"] });
      expect(await migrate(db, dir)).toEqual({ applied: [], changed: ["20260101000000_a.sql"] });
    });

    it("leaves another tool's schema_migrations as it is", async () => {
      await db.exec(`create table schema_migrations (version bigint primary key, dirty boolean not null)`);
      write("20260101000000_a.sql", "create table a (id int);");
      expect(await migrate(db, dir)).toEqual({ applied: ["20260101000000_a.sql"], changed: [] });
      expect(await publicTables(db)).toEqual(["a", "schema_migrations"]);
    });

    it("keeps a local data folder from before working for the commands", async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "migrations-data-"));
      try {
        await copyEmptyPglite(path.join(dataDir, "pglite"));
        const old = await createPgliteExecutor(path.join(dataDir, "pglite"));
        await migrateTheOldWay(old, MIGRATIONS_DIR);
        await seedConfirmed(old, 2);
        await old.close();

        expect(await subscribers(["stats"], { DATA_DIR: dataDir })).toMatch(/confirmed\s+2\n/);
        const adopted = await createPgliteExecutor(path.join(dataDir, "pglite"));
        try {
          expect(await migrate(adopted)).toEqual({ applied: [], changed: [] });
          expect(await publicTables(adopted)).not.toContain("schema_migrations");
          expect((await record(adopted)).map((row) => row.statements)).toEqual(
            readdirSync(MIGRATIONS_DIR)
              .sort()
              .map((name) => splitStatements(readFileSync(path.join(MIGRATIONS_DIR, name), "utf8"))),
          );
        } finally {
          await adopted.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});

describe("a read-only command's answer to a database that lacks migrations", () => {
  const pending = ["20261122000000_subscribers.sql", "20261122000100_mail_jobs.sql"];

  it("names the files, and has Supabase's owner push them with the CLI", () => {
    for (const host of [
      "db.abcdefghijklmnop.supabase.co:5432",
      "aws-0-eu-central-1.pooler.supabase.com:6543",
    ])
      expect(pendingMigrationsMessage(`postgresql://postgres:secret@${host}/postgres`, pending)).toMatch(
        /lacks the migrations 20261122000000_subscribers\.sql, 20261122000100_mail_jobs\.sql\. .*apply them with `npx supabase db push`/,
      );
  });

  it("has any other database migrated by starting the local stack on it", () => {
    const message = pendingMigrationsMessage("postgresql://me:secret@localhost:5432/newsletter", pending);
    expect(message).toMatch(
      /^PostgreSQL localhost:5432\/newsletter lacks the migrations 20261122000000_subscribers\.sql, /,
    );
    expect(message).toMatch(
      /start the local stack on it once \(`npm start` with this DATABASE_URL\), which applies them/,
    );
    expect(message).not.toContain("secret");
  });
});

const serverUrl = testPostgresUrl();
(serverUrl ? describe : describe.skip)("the runner and the Supabase CLI on PostgreSQL", () => {
  const DATE = "2026-11-23";
  const SITE = "https://www.thepurposeeffect.example";
  const cleanups: (() => Promise<void> | void)[] = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const temporaryDir = (prefix: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  async function database(): Promise<TestDatabase & { db: SqlExecutor }> {
    const created = await createTestDatabase(serverUrl as string);
    const db = createPostgresExecutor(created.url, { max: 2 });
    cleanups.push(() => created.drop());
    cleanups.push(() => db.close());
    return { ...created, db };
  }

  /** A folder the CLI works in, as the repository is: `supabase/config.toml` and the migrations. */
  const cliProject = (migrations: string) => layCliProject(temporaryDir("supabase-cli-"), migrations);
  const supabase = supabaseOnDatabase;

  /** `npm run SCRIPT -- ARGS`, as the owner types it. */
  async function npmRun(script: string, args: string[], env: Record<string, string>): Promise<string> {
    const { stdout } = await execFileAsync("npm", ["run", "--silent", script, "--", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    return stdout;
  }

  const repository = () => cliProject(MIGRATIONS_DIR);

  it("serves the owner's commands on a database `supabase db push` migrated, and applies nothing to it", async () => {
    const project = repository();
    const { url, db } = await database();
    await supabase(project, ["db", "push", "--yes"], url);
    await seedConfirmed(db, 3);
    const publicDir = temporaryDir("migrations-public-");
    publishEdition(publicDir, fixtureEdition(DATE, SITE));
    const dataDir = temporaryDir("migrations-data-");
    const env = { DATABASE_URL: url, DATA_DIR: dataDir, PUBLIC_DIR: publicDir, SITE_URL: SITE };
    const pushed = await record(db);

    expect(await npmRun("effect", ["status", DATE], env)).toMatch(/not prepared/);
    const stats = await npmRun("subscribers", ["stats"], env);
    expect(stats).toMatch(/confirmed\s+3\n/);
    expect(stats).toMatch(/total\s+3\n/);
    const csv = (await npmRun("subscribers", ["export"], env)).trim().split("\r\n");
    expect(csv[0]).toMatch(/^email,status,/);
    expect(csv.slice(1).map((line) => line.split(",")[0])).toEqual([
      "reader1@example.com",
      "reader2@example.com",
      "reader3@example.com",
    ]);
    // The one command that migrates: the CLI's record says every file is there, so none runs again.
    const sent = await npmRun("effect", ["send", DATE], env);
    expect(sent).toMatch(/Prepared the Effect of 2026-11-23 for 3 confirmed subscribers/);
    expect(sent).toMatch(/sent\s+3/);
    const mails = await readOutbox(path.join(dataDir, "outbox"));
    expect(mails.flatMap(recipients).sort()).toEqual([
      "reader1@example.com",
      "reader2@example.com",
      "reader3@example.com",
    ]);
    expect(await npmRun("effect", ["status", DATE], env)).toMatch(/sent\s+3/);

    expect(await record(db)).toEqual(pushed);
    expect(await publicTables(db)).not.toContain("schema_migrations");
    expect((await supabase(project, ["db", "push", "--dry-run"], url)).stdout).toMatch(
      /Remote database is up to date/,
    );
  });

  it("leaves the CLI nothing to push after the runner, and records what the CLI would", async () => {
    const project = repository();
    const ours = await database();
    const theirs = await database();
    expect((await migrate(ours.db)).changed).toEqual([]);
    await supabase(project, ["db", "push", "--yes"], theirs.url);

    expect((await supabase(project, ["db", "push", "--dry-run"], ours.url)).stdout).toMatch(
      /Remote database is up to date/,
    );
    const { stdout: list } = await supabase(project, ["migration", "list"], ours.url);
    for (const { version } of await record(theirs.db))
      expect(list).toMatch(new RegExp(`${version}\`? *\\| *\`?${version}`));
    expect(await record(ours.db)).toEqual(await record(theirs.db));
  });

  it("splits a file into statements as the CLI does, and sees the CLI's record of it as unchanged", async () => {
    const migrations = temporaryDir("migrations-tricky-");
    const file = path.join(migrations, "20260101000000_tricky.sql");
    writeFileSync(
      file,
      `-- What a split must get right; a comment's semicolon, and 'quotes'.
create table "odd;name" (id int, note text default 'it''s; fine');
/* a block /* nested; */ comment; */
create table plain (id int);
create table pending$$names (id int);
create function add_one(a integer) returns integer language sql immutable
begin atomic
  select case when a is null then 0 else a + 1 end;
end;
create rule plain_notify as on update to plain do also (notify plain; select 1);
do $body$ begin perform 1; end $body$;
comment on table plain is 'Grüße; ünïcödé $x$ “quoted”'  ;  ;
-- a last comment
`,
    );
    const project = cliProject(migrations);
    const ours = await database();
    const theirs = await database();
    await migrate(ours.db, migrations);
    await supabase(project, ["db", "push", "--yes"], theirs.url);
    expect(await record(ours.db)).toEqual(await record(theirs.db));

    expect(await migrate(theirs.db, migrations)).toEqual({ applied: [], changed: [] });
    writeFileSync(file, readFileSync(file, "utf8").replace("a + 1", "a + 2"));
    expect(await migrate(theirs.db, migrations)).toEqual({
      applied: [],
      changed: ["20260101000000_tricky.sql"],
    });
  });

  it("has two processes migrating one database at once take turns", async () => {
    const { url, db } = await database();
    const other = createPostgresExecutor(url, { max: 2 });
    cleanups.push(() => other.close());
    const [first, second] = await Promise.all([migrate(db), migrate(other)]);
    expect([...first.applied, ...second.applied].sort()).toEqual(
      readdirSync(MIGRATIONS_DIR)
        .filter((name) => name.endsWith(".sql"))
        .sort(),
    );
    expect(await pendingMigrations(db)).toEqual([]);
  });
});
