/**
 * Supabase's API roles can do nothing to the newsletter's tables. Row-level security hides rows
 * but not TRUNCATE, and Supabase grants every new table in `public` to `anon` and
 * `authenticated` by default; this test sets up those roles and defaults on the test PostgreSQL
 * as Supabase does, applies the migrations, and tries what the public anon key could.
 */
import postgres from "postgres";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import { migrate } from "../migrations.ts";
import { createTestDatabase, type TestDatabase, testPostgresUrl } from "../../test/support/databases.ts";

const API_ROLES = ["anon", "authenticated"] as const;
const PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"];
const serverUrl = testPostgresUrl();

(serverUrl ? describe : describe.skip)("the newsletter's tables, for Supabase's API roles", () => {
  let database: TestDatabase;
  let sql: postgres.Sql;
  let tables: string[];

  beforeAll(async () => {
    database = await createTestDatabase(serverUrl as string);
    sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    // Roles belong to the whole server; create them once, as Supabase has them.
    for (const role of API_ROLES)
      await sql.unsafe(
        `do $$ begin create role ${role} nologin; exception when duplicate_object then null; end $$`,
      );
    // Supabase's defaults: every table created in `public` is granted to the API roles.
    await sql.unsafe(`alter default privileges in schema public grant all on tables to anon, authenticated`);
    const db = createPostgresExecutor(database.url, { max: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    // And the migration record, which is in a schema of its own (as `supabase db push` keeps it).
    tables = (
      await sql<{ name: string }[]>`
        select schemaname || '.' || tablename as name from pg_tables
        where schemaname in ('public', 'supabase_migrations') order by 1`
    ).map((row) => row.name);
  });

  afterAll(async () => {
    await sql?.end();
    await database?.drop();
  });

  it("covers every table the migrations create", () => {
    expect(tables).toEqual(
      expect.arrayContaining([
        "public.mail_jobs",
        "public.rate_limits",
        "public.subscribers",
        "supabase_migrations.schema_migrations",
      ]),
    );
  });

  it.each(API_ROLES)("grants %s no privilege on any of them", async (role) => {
    const held: string[] = [];
    for (const table of tables)
      for (const privilege of PRIVILEGES) {
        const [{ has }] = await sql<{ has: boolean }[]>`
          select has_table_privilege(${role}, ${table}, ${privilege}) as has`;
        if (has) held.push(`${privilege} on ${table}`);
      }
    expect(held).toEqual([]);
  });

  it.each(API_ROLES)("refuses %s a TRUNCATE of the subscribers", async (role) => {
    await sql`insert into subscribers (email) values ('kept@example.com')`;
    const attempt = sql.begin(async (tx) => {
      await tx.unsafe(`set local role ${role}`);
      await tx.unsafe(`truncate subscribers cascade`);
    });
    await expect(attempt).rejects.toThrow(/permission denied/);
    expect(await sql`select email from subscribers where email = 'kept@example.com'`).toHaveLength(1);
    await sql`delete from subscribers`;
  });
});
