/**
 * The split of a migration into statements, on cases like the Supabase CLI's own parser tests
 * (supabase/cli, apps/cli-go/pkg/parser/state_test.go), each split as the pinned CLI 2.122.1 splits
 * it; the migrations tests compare the split with what the real CLI records.
 */
import { sameScript, splitStatements } from "../sql-statements.ts";

describe("a migration split into statements as the Supabase CLI splits it", () => {
  it.each([
    [
      "ends a statement at a semicolon, trimmed, and leaves out empty ones",
      ";END;  ;\n BEGIN  ;",
      ["END", "BEGIN"],
    ],
    [
      "keeps a line comment with the statement after it",
      "END;\n-- comment\nSELECT 1",
      ["END", "-- comment\nSELECT 1"],
    ],
    ["keeps a semicolon inside a line comment", "SELECT --; 1\n1", ["SELECT --; 1\n1"]],
    ["keeps nested block comments whole", "SELECT /*; /*;*/ ;*/ 1", ["SELECT /*; /*;*/ ;*/ 1"]],
    ["takes a lone minus or slash for no comment", "- ;/ * ;END", ["-", "/ *", "END"]],
    [
      "keeps quoted semicolons and doubled quotes",
      `SELECT ';'';' 1; CREATE POLICY "pet"";name" on pets`,
      ["SELECT ';'';' 1", `CREATE POLICY "pet"";name" on pets`],
    ],
    [
      "keeps a dollar-quoted body whole",
      "do $tag$ begin; end $tag$; do $$ ; $$",
      ["do $tag$ begin; end $tag$", "do $$ ; $$"],
    ],
    ["takes a backslash to escape the next character", "\\;;\\;", ["\\", "\\"]],
    [
      "keeps the statements of a rule's parentheses together",
      "CREATE RULE r AS ON UPDATE TO t DO (NOTIFY t; SELECT 1);SELECT 2",
      ["CREATE RULE r AS ON UPDATE TO t DO (NOTIFY t; SELECT 1)", "SELECT 2"],
    ],
    [
      "keeps a BEGIN ATOMIC body whole, to its END",
      "create function f() returns int language sql begin  atomic select 1; select 2; end; select 3",
      ["create function f() returns int language sql begin  atomic select 1; select 2; end", "select 3"],
    ],
    [
      "takes any character beyond ASCII for part of a dollar tag",
      "select $€$a;b$€$; select 2",
      ["select $€$a;b$€$", "select 2"],
    ],
    [
      "takes a `$` after a name's character for part of the name, not a dollar quote",
      "create table pending$$foo (id int); select 2",
      ["create table pending$$foo (id int)", "select 2"],
    ],
    [
      "ends a BEGIN ATOMIC body only at an END that begins a statement",
      "begin atomic select case when a then 1 else 2 end; /* c */ END; select 3",
      ["begin atomic select case when a then 1 else 2 end; /* c */ END", "select 3"],
    ],
  ])("%s", (_behaviour, sql, statements) => {
    expect(splitStatements(sql)).toEqual(statements);
  });
});

describe("statements compared with their file", () => {
  const file = "-- Two tables.\ncreate table a (id int);\n\ncreate table b (id int);\n";

  it("finds them the same whatever whitespace and closing semicolons the file has", () => {
    expect(sameScript(splitStatements(file), file)).toBe(true);
    expect(sameScript(["-- Two tables.\ncreate table a (id int)", "create table b (id int)"], file)).toBe(
      true,
    );
    expect(
      sameScript(
        splitStatements(file),
        "-- Two tables.\n  create table a (id int) ;;\ncreate table b (id int)",
      ),
    ).toBe(true);
  });

  it("finds them different when a statement changed", () => {
    expect(sameScript(splitStatements(file), file.replace("b (id int)", "b (id bigint)"))).toBe(false);
    expect(sameScript(splitStatements(file), `${file}create table c (id int);\n`)).toBe(false);
  });
});
