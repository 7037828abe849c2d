/**
 * The Node projects' TypeScript compiler in Jest (test/support/jest/transform-typescript.js): what
 * the code under test means must not change with it, and coverage must still see the files.
 */
import { createRequire } from "node:module";

interface Transform {
  getCacheKey(source: string, file: string, options: { instrument: boolean }): string;
  process(source: string, file: string): { code: string; map: string };
}

const transform = createRequire(__filename)("../jest/transform-typescript.js") as Transform;

/** The compiled module's exports, run as CommonJS in this realm. */
function run(source: string): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  new Function("module", "exports", "require", transform.process(source, "/virtual/file.ts").code)(
    module,
    module.exports,
    require,
  );
  return module.exports;
}

describe("the Node projects' TypeScript in Jest", () => {
  it("gives a module loaded with import() its named exports, as Node does", async () => {
    const loaded = await import("../eventually.ts");
    expect(typeof loaded.eventually).toBe("function");
  });

  it("defines class fields, as tsconfig's ES2022 target and tsx do, instead of assigning them", () => {
    const { made } = run(`
      class Base { set label(value: string) { throw new Error("assigned through the setter: " + value); } }
      class Named extends Base { label = "defined"; constructor(private readonly id: number) { super(); } }
      export const made = new Named(7);
    `);
    expect(made).toMatchObject({ label: "defined", id: 7 });
  });

  it("compiles every file in strict mode, as tsconfig's `strict` says and tsx does", () => {
    const { self, write } = run(`
      export function self(this: unknown) { return this; }
      export function write() { Object.freeze({ a: 1 }).a = 2; }
    `);
    expect((self as () => unknown)()).toBeUndefined();
    expect(write as () => void).toThrow(TypeError);
  });

  it("refuses what it would compile otherwise than written: a mocked module and import.meta", () => {
    // Spelled in two parts: the transform reads this file's own text too.
    const mocking = ["jest", 'mock("./x.ts");'].join(".");
    expect(() => transform.process(mocking, "/virtual/mocks.ts")).toThrow(/not hoisted/);
    expect(() => transform.process("export const at = import.meta.url;", "/virtual/meta.ts")).toThrow(
      /import\.meta/,
    );
  });

  it("drops what is only a type and keeps import() for Jest's modules", () => {
    const { code } = transform.process(
      'import type { Kind } from "./kinds.ts";\nexport const later = () => import("./later.ts");\nexport const kind: Kind = 1;',
      "/virtual/file.ts",
    );
    expect(code).not.toContain("kinds.ts");
    expect(code).toContain('import("./later.ts")');
  });

  it("caches a file's instrumented form for --coverage apart from its plain one", () => {
    const key = (source: string, instrument: boolean) =>
      transform.getCacheKey(source, "/virtual/file.ts", { instrument });
    expect(key("export const a = 1;", true)).not.toBe(key("export const a = 1;", false));
    expect(key("export const a = 1;", false)).not.toBe(key("export const a = 2;", false));
    expect(key("export const a = 1;", false)).toBe(key("export const a = 1;", false));
  });
});
