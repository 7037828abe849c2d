/**
 * The packages a Jest worker loads once, outside the files' sandboxes
 * (test/support/jest/outside-sandbox.js): an import of one is the worker's own module, and a
 * package not on the list cannot be had that way.
 */
import * as playwright from "playwright-core";

declare const outsideSandbox: (name: string) => unknown;

describe("a package loaded outside the sandbox", () => {
  it("is the worker's own module wherever a file imports it", () => {
    expect(outsideSandbox("playwright-core")).toBe(jest.requireActual("playwright-core"));
    expect(playwright.chromium).toBe((outsideSandbox("playwright-core") as typeof playwright).chromium);
  });

  it("is the worker's realm's: its objects are not the sandbox's", () => {
    // The end of an object's prototype chain is its realm's Object.prototype.
    const root = (value: object): object => {
      let at = value;
      for (let next = Object.getPrototypeOf(at); next !== null; next = Object.getPrototypeOf(at)) at = next;
      return at;
    };
    expect(root({})).toBe(Object.prototype);
    expect(root(playwright.chromium)).not.toBe(Object.prototype);
  });

  it("is mapped so in both projects that run in Node, the browser tests' included", () => {
    const config = jest.requireActual<{ projects: { displayName: string; moduleNameMapper?: object }[] }>(
      "../../../jest.config.js",
    );
    const mapped = config.projects
      .filter((project) => project.moduleNameMapper && "^playwright-core$" in project.moduleNameMapper)
      .map((project) => project.displayName);
    expect(mapped).toEqual(["backend", "e2e"]);
  });

  it("refuses a package that is not on the list", () => {
    expect(() => outsideSandbox("react")).toThrow(/react is not loaded outside the sandbox/);
  });
});
