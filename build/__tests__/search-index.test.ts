import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pagefindRecords } from "../../test/support/pagefind";
import { SEARCH_DIR, writeDevelopSearchIndex } from "../search-index";

// The index `npm run cms` makes from the Effects' fields (e2e/effect-search.test.ts compares it with
// the built pages' index, whose fixtures have no sign HTML gives a meaning to).
describe("writeDevelopSearchIndex", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "develop-search-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const effect = {
    date: "2026-11-20",
    dateLabel: "November 20, 2026",
    title: `Fathers & sons: <em>not</em> "easy", 3 < 4`,
    html: "<p>Bread &amp; butter, <em>kindly</em>.</p>",
  };

  it("keeps a title's and a body's signs as the editor wrote them", async () => {
    const publicDir = path.join(dir, "public");
    expect(await writeDevelopSearchIndex(publicDir, path.join(dir, "pages"), [effect])).toBe(1);
    const [record] = pagefindRecords(publicDir);
    expect(record.url).toBe("/effects/2026-11-20/");
    expect(record.meta).toEqual({ title: effect.title, date: "November 20, 2026" });
    expect(record.content).toBe(`${effect.title}. Bread & butter, kindly.`);
  });

  it("leaves the last index in place when Pagefind cannot make the next", async () => {
    const publicDir = path.join(dir, "public");
    await writeDevelopSearchIndex(publicDir, path.join(dir, "pages"), [effect]);
    const before = readdirSync(path.join(publicDir, SEARCH_DIR, "fragment"));
    // An Effect whose date makes no page under effects/: Pagefind indexes one page fewer than asked.
    await expect(
      writeDevelopSearchIndex(publicDir, path.join(dir, "pages"), [effect, { ...effect, date: "../../x" }]),
    ).rejects.toThrow("Pagefind indexed 1 pages, not the 2 Effects published");
    expect(readdirSync(path.join(publicDir, SEARCH_DIR, "fragment"))).toEqual(before);
    expect(existsSync(path.join(publicDir, `${SEARCH_DIR}.next`))).toBe(false);
  });
});
