import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { compactIcons } from "../built-site";

const ICON = path.join(__dirname, "..", "..", "src", "images", "icon.png");

/** PNG's colour type, from the IHDR chunk: 3 is a palette, 6 is full colour with alpha. */
const colourType = (png: Buffer) => png[25];

/** The largest difference in any channel between two pictures as shown on white and on black. */
async function largestDifference(one: Buffer, other: Buffer): Promise<number> {
  let largest = 0;
  for (const background of ["#ffffff", "#000000"]) {
    const [a, b] = await Promise.all(
      [one, other].map((png) => sharp(png).flatten({ background }).raw().toBuffer()),
    );
    expect(b.length).toBe(a.length);
    for (let at = 0; at < a.length; at++) largest = Math.max(largest, Math.abs(a[at] - b[at]));
  }
  return largest;
}

describe("compactIcons", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "icons-"));
    mkdirSync(path.join(dir, "icons"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("rewrites the manifest's icons as smaller palette PNGs that look the same, and keeps what it cannot shrink", async () => {
    // As gatsby-plugin-manifest writes them: the brand's icon resized, full colour.
    const written: Record<string, Buffer> = {};
    for (const [file, size] of [
      ["icons/icon-144x144.png", 144],
      ["icons/icon-512x512.png", 512],
      ["favicon-32x32.png", 32],
    ] as const) {
      written[file] = await sharp(ICON).resize(size, size).png().toBuffer();
      expect(colourType(written[file])).toBe(6);
      writeFileSync(path.join(dir, file), written[file]);
    }

    const saved = await compactIcons(dir);

    let total = 0;
    for (const file of ["icons/icon-144x144.png", "icons/icon-512x512.png"]) {
      const [before, after] = [written[file], readFileSync(path.join(dir, file))];
      expect(colourType(after)).toBe(3);
      expect(after.length).toBeLessThan(before.length);
      total += before.length - after.length;
      expect((await sharp(after).metadata()).width).toBe((await sharp(before).metadata()).width);
      // A step or two in 255 at an edge's smoothing at most, on a light or a dark background.
      expect(await largestDifference(before, after)).toBeLessThanOrEqual(4);
    }
    // At 32 px the palette PNG is no smaller: the favicon is kept as it was.
    expect(readFileSync(path.join(dir, "favicon-32x32.png")).equals(written["favicon-32x32.png"])).toBe(true);
    expect(saved).toBe(total);
    // The 144 px icon a phone fetches while the landing page loads.
    expect(readFileSync(path.join(dir, "icons/icon-144x144.png")).length).toBeLessThan(4_000);

    // A second build finds nothing to make smaller and leaves the files as they are.
    const first = readFileSync(path.join(dir, "icons/icon-144x144.png"));
    expect(await compactIcons(dir)).toBe(0);
    expect(readFileSync(path.join(dir, "icons/icon-144x144.png")).equals(first)).toBe(true);
  });

  it("does nothing where there are no icons", async () => {
    rmSync(path.join(dir, "icons"), { recursive: true });
    expect(await compactIcons(dir)).toBe(0);
  });
});
