/**
 * The one-writer-per-table check (`npm run check:writes`): on this repository it finds no write
 * outside a table's owner; on a small repository made here, a write to `subscribers` added to
 * another module fails it, by file and line, and so does a table nobody owns.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { scratchRepository } from "../../test/support/scratch-repository";
import { TABLE_OWNERS, tablesOf, writesOutsideOwners } from "../check-writes";
import { typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function repository(files: Record<string, string>): string {
  const root = scratchRepository(files, "writes-check-");
  roots.push(root);
  return root;
}

const OWNER = "supabase/functions/_shared/subscriptions/subscriber-rows.ts";

describe("one writer per table", () => {
  it("finds no write outside its table's owner in this repository, and every table has an owner", () => {
    expect(writesOutsideOwners(ROOT)).toEqual([]);
    expect(tablesOf(ROOT)).toEqual(Object.keys(TABLE_OWNERS).sort());
  });

  it("names the file and line of a write to subscribers from another module, and fails the command", () => {
    const root = repository({
      "supabase/migrations/1_subscribers.sql": "create table if not exists subscribers (id uuid);\n",
      [OWNER]: "export const mark = `update subscribers set status = 'x'`;\n",
      "supabase/functions/_shared/effect-sending/delivery-store.ts":
        "// for update skip locked; on conflict do update set x = 1\n" +
        "const a = `select 1 from subscribers for update`;\n" +
        "const b = `UPDATE public.subscribers SET undeliverable_at = now()`;\n",
      "supabase/functions/_shared/subscriptions/__tests__/rows.test.ts": "`delete from subscribers`;\n",
      "supabase/migrations/2_backfill.sql": "update subscribers set status = 'x';\n",
    });
    expect(writesOutsideOwners(root, { subscribers: OWNER })).toEqual([
      {
        file: "supabase/functions/_shared/effect-sending/delivery-store.ts",
        line: 3,
        table: "subscribers",
        owner: OWNER,
      },
    ]);
    // The command, on that repository: it fails and says where.
    const run = spawnSync(process.execPath, typeScript(path.join(ROOT, "scripts/check-writes.ts"), root), {
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `supabase/functions/_shared/effect-sending/delivery-store.ts:3: writes subscribers, which only ${OWNER} writes`,
    );
  });

  it("fails a write to a table that has no owner", () => {
    const root = repository({
      "supabase/migrations/1_notes.sql": "create table notes (id int);\n",
      "server/notes.ts": "export const add = `insert into notes (id) values (1)`;\n",
    });
    expect(writesOutsideOwners(root, {})).toEqual([
      { file: "server/notes.ts", line: 1, table: "notes", owner: null },
    ]);
  });
});
