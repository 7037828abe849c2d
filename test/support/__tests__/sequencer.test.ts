/**
 * Jest's order on a fresh clone: the browser tests last, and in each group the files known to run
 * longest first, so that none of them starts last and ends the run alone.
 */
import { existsSync } from "node:fs";
import path from "node:path";

// CommonJS, loaded by Jest itself untransformed.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require("../jest/sequencer.js") as {
  new (options: { contexts: unknown[]; globalConfig: unknown }): {
    sort(tests: FakeTest[]): Promise<FakeTest[]>;
  };
  LONGEST_FIRST: string[];
};

const ROOT = path.resolve(__dirname, "../../..");

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { displayName?: { name: string } }; hasteFS: { getSize(file: string): number } };
}

/** A test file as Jest hands it to the sequencer, never run before (no duration), of a given size. */
const file = (name: string, project: string, size: number): FakeTest => ({
  path: path.join(ROOT, name),
  context: { config: { displayName: { name: project } }, hasteFS: { getSize: () => size } },
});

describe("the order of a fresh clone's test files", () => {
  it("names only files that exist", () => {
    for (const name of Sequencer.LONGEST_FIRST) expect(existsSync(path.join(ROOT, name))).toBe(true);
  });

  it("puts the browser tests last and the longest files first in each group, the rest by size", async () => {
    const sequencer = new Sequencer({ contexts: [], globalConfig: {} });
    const sorted = await sequencer.sort([
      file("e2e/landing.test.ts", "e2e", 9_000),
      file("e2e/accessibility.test.ts", "e2e", 3_000),
      file("server/__tests__/small.test.ts", "backend", 1_000),
      file("server/__tests__/big.test.ts", "backend", 20_000),
      file("scripts/__tests__/deploying-doc.test.ts", "backend", 4_000),
      file("src/components/__tests__/footer.test.tsx", "site", 2_000),
    ]);
    expect(sorted.map((test) => path.relative(ROOT, test.path))).toEqual([
      "scripts/__tests__/deploying-doc.test.ts",
      "server/__tests__/big.test.ts",
      "src/components/__tests__/footer.test.tsx",
      "server/__tests__/small.test.ts",
      "e2e/accessibility.test.ts",
      "e2e/landing.test.ts",
    ]);
  });
});
