import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { VARIABLES } from "../../supabase/functions/_shared/contract/variables";
import { SKIPPABLE, skippedPieces } from "../pieces";

const ROOT = path.resolve(__dirname, "../..");

describe("BENCH_SKIP", () => {
  it("leaves out the pieces it names, and refuses one it does not know", () => {
    expect([...skippedPieces({ BENCH_SKIP: " tap, year" })]).toEqual(["tap", "year"]);
    expect(skippedPieces({}).size).toBe(0);
    expect(() => skippedPieces({ BENCH_SKIP: "tap,lighthouse" })).toThrow(
      `BENCH_SKIP: unknown lighthouse; it takes ${SKIPPABLE.join(", ")}`,
    );
  });

  it("is written with every piece, in their order, wherever the docs and comments list them", () => {
    const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((file) => /\.(md|ts|tsx|js|mjs|yml)$/.test(file) && existsSync(path.join(ROOT, file)));
    const lists = files.flatMap((file) =>
      [...readFileSync(path.join(ROOT, file), "utf8").matchAll(/BENCH_SKIP=([a-z]+(?:,[a-z]+)+)/g)].map(
        ([, list]) => ({ file, list }),
      ),
    );
    // bench/run.ts's opening comment and docs/testing.md at least.
    expect(lists.map(({ file }) => file)).toEqual(
      expect.arrayContaining(["bench/run.ts", "docs/testing.md"]),
    );
    for (const { file, list } of lists) expect({ file, list }).toEqual({ file, list: SKIPPABLE.join(",") });
  });

  it("is described with every piece in the settings registry, which the settings table and .env.example are written from", () => {
    const described = VARIABLES.find(({ name }) => name === "BENCH_SKIP")?.description ?? "";
    expect(described).toContain(`comma-separated: ${SKIPPABLE.join(", ")} (`);
  });
});
