/** The migration runner on PGlite: name order, each file once, changed files reported, failures rolled back. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { migrate } from "../migrations.ts";
import { createPgliteExecutor } from "../pglite-executor.ts";

describe("the migration runner", () => {
  let db: SqlExecutor;
  let dir: string;
  const write = (name: string, sql: string) => writeFileSync(path.join(dir, name), sql);
  const tables = async () =>
    (
      await db.query<{ name: string }>(
        `select table_name as name from information_schema.tables where table_schema = 'public' order by 1`,
      )
    ).map((row) => row.name);

  beforeEach(async () => {
    db = await createPgliteExecutor();
    dir = mkdtempSync(path.join(tmpdir(), "migrations-"));
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("applies the files in name order, each once, and only new ones on the next start", async () => {
    write("20260101000100_b.sql", "create table b (id int references a (id));");
    write("20260101000000_a.sql", "create table a (id int primary key);");
    expect(await migrate(db, dir)).toEqual({
      applied: ["20260101000000_a.sql", "20260101000100_b.sql"],
      changed: [],
    });

    write("20260101000200_c.sql", "create table c (id int);");
    expect(await migrate(db, dir)).toEqual({ applied: ["20260101000200_c.sql"], changed: [] });
    expect(await tables()).toEqual(["a", "b", "c", "schema_migrations"]);
  });

  it("reports a file changed after it was applied, without running it again", async () => {
    write("20260101000000_a.sql", "create table a (id int);");
    await migrate(db, dir);
    write("20260101000000_a.sql", "create table a (id int, name text);");
    expect(await migrate(db, dir)).toEqual({ applied: [], changed: ["20260101000000_a.sql"] });
  });

  it("rolls a failing file back whole and records nothing for it", async () => {
    write("20260101000000_a.sql", "create table a (id int);\ncreate table a (id int);");
    await expect(migrate(db, dir)).rejects.toThrow(/already exists/);
    expect(await tables()).toEqual(["schema_migrations"]);
    expect(await db.query(`select name from schema_migrations`)).toEqual([]);
  });
});
