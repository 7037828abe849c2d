/**
 * The HTML renderer's salt. That a changed stylesheet writes again the pages whose data did not
 * change, in a real build from a kept cache, is e2e/start-freshness.test.ts's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { browserFilesSalt } from "../bundles";

describe("the HTML renderer's hash and the browser's files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "bundles-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const stats = (assetsByChunkName: Record<string, string[]>) =>
    writeFileSync(path.join(dir, "webpack.stats.json"), JSON.stringify({ assetsByChunkName }));

  it("changes with any file the browser build wrote, and only then", () => {
    expect(browserFilesSalt(dir)).toBeNull();
    stats({ app: ["app-1.js"], styles: ["styles.a.css"] });
    const first = browserFilesSalt(dir);
    stats({ styles: ["styles.a.css"], app: ["app-1.js"] });
    expect(browserFilesSalt(dir)).toBe(first);
    stats({ app: ["app-1.js"], styles: ["styles.b.css"] });
    expect(browserFilesSalt(dir)).not.toBe(first);
    stats({ app: ["app-2.js"], styles: ["styles.a.css"] });
    expect(browserFilesSalt(dir)).not.toBe(first);
  });
});
