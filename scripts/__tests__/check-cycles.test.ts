/**
 * The import-cycle check (`npm run check:cycles`, package.json's own command line): in a small
 * repository made here (test/support/scratch-repository.ts) it fails on a cycle between two
 * modules, in TypeScript (with or without the extension in the import, and through type-only
 * imports) and in CommonJS, naming both files; it passes on the same files without the cycle, and
 * reads nothing under node_modules/, public/ or a dot folder (Gatsby's caches, the tests' copies of
 * the project, git's own).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { scratchRepository } from "../../test/support/scratch-repository";

const ROOT = path.resolve(__dirname, "../..");
const COMMAND = (
  JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts["check:cycles"];

const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** The check's command run in a folder holding `files`, as `npm run` runs it (the project's tools on the path). */
function checkCycles(files: Record<string, string>): { status: number | null; said: string } {
  const folder = scratchRepository(files, "cycles-check-");
  folders.push(folder);
  const run = spawnSync("sh", ["-c", COMMAND], {
    cwd: folder,
    env: {
      ...process.env,
      PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
    },
    encoding: "utf8",
  });
  return { status: run.status, said: `${run.stdout}${run.stderr}` };
}

/** Two modules that import each other, in each way the project writes imports. */
const CYCLES = {
  "server/a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
  "server/b.ts": 'import { a } from "./a";\nexport const b = 1;\nvoid a;\n',
  "supabase/functions/_shared/c.ts": 'import { d } from "./d.ts";\nexport const c = () => d;\n',
  "supabase/functions/_shared/d.ts": 'import type { C } from "./e.ts";\nexport const d: C = 1;\n',
  "supabase/functions/_shared/e.ts": 'import { c } from "./c.ts";\nexport type C = number;\nvoid c;\n',
  "test/support/jest/x.js": 'const y = require("./y.js");\nmodule.exports = { y };\n',
  "test/support/jest/y.js": 'const x = require("./x.js");\nmodule.exports = { x };\n',
};

/** The same cycle where the check must not look. */
const IGNORED = {
  "node_modules/pkg/a.js": 'require("./b.js");\n',
  "node_modules/pkg/b.js": 'require("./a.js");\n',
  "public/app-a.js": 'import "./app-b.js";\n',
  "public/app-b.js": 'import "./app-a.js";\n',
  ".test-project/server/a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
  ".test-project/server/b.ts": 'import { a } from "./a";\nexport const b = 1;\nvoid a;\n',
};

describe("npm run check:cycles", () => {
  it("fails on each cycle, naming its files", () => {
    const { status, said } = checkCycles(CYCLES);
    expect(status).toBe(1);
    expect(said).toMatch(/server\/b\.ts -> server\/a\.ts|server\/a\.ts -> server\/b\.ts/);
    for (const file of ["_shared/c.ts", "_shared/d.ts", "_shared/e.ts", "jest/x.js", "jest/y.js"])
      expect(said).toContain(file);
    expect(said.match(/^\s*\d+\) /gm)).toHaveLength(3);
  });

  it("passes when the modules import one way only, whatever node_modules/, public/ and dot folders hold", () => {
    const { status, said } = checkCycles({
      ...IGNORED,
      "server/a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
      "server/b.ts": "export const b = 1;\n",
    });
    expect(said).toContain("no circular dependency");
    expect(status).toBe(0);
  });
});
