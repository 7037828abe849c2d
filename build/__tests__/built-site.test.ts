import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { differingShare, pngSize } from "../../test/support/png";
import { compactIcons } from "../built-site";

const ICON = path.join(__dirname, "..", "..", "src", "images", "icon.png");

/** PNG's colour type, from the IHDR chunk: 3 is a palette, 6 is full colour with alpha. */
const colourType = (png: Buffer) => png[25];

/** A picture as shown on a page of `background`: its transparent corners take that colour. */
const shownOn = (png: Buffer, background: string) => sharp(png).flatten({ background }).png().toBuffer();

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
      expect(await pngSize(after)).toEqual(await pngSize(before));
      // On a light or a dark page, no pixel differs by more than a few steps in 255 (an edge's smoothing).
      for (const background of ["#ffffff", "#000000"]) {
        const [was, is] = await Promise.all([shownOn(before, background), shownOn(after, background)]);
        expect(await differingShare(was, is, undefined, 4)).toBe(0);
      }
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
