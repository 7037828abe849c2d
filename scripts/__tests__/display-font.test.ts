import { readFileSync } from "node:fs";
import path from "node:path";
import {
  BASIC_FONT,
  BASIC_RANGES,
  basicSubset,
  CHART_FONT_MODULE,
  chartFontModule,
  codePoints,
  unicodeRange,
} from "../display-font";
import { needsRestOfLatin, REST_OF_LATIN_RANGE } from "../../src/fonts/basic-ranges";

const ROOT = path.resolve(__dirname, "../..");
const css = readFileSync(path.join(ROOT, "src/styles/global.css"), "utf8");

/** Each @font-face of global.css: its src url and the code points of its unicode-range. */
const faces = [...css.matchAll(/@font-face\s*{([^}]*)}/g)].map(([, body]) => ({
  src: /src:\s*url\("([^"]+)"\)/.exec(body)?.[1],
  range: /unicode-range:([^;]+);/.exec(body)?.[1].replace(/\s+/g, " ").trim(),
}));

/** The code points of a CSS unicode-range such as "U+0000-00FF,U+0131". */
function points(range: string): Set<number> {
  return new Set(
    range.split(",").flatMap((part) => {
      const [first, last = first] = part.trim().replace(/^U\+/i, "").split("-");
      return codePoints([[parseInt(first, 16), parseInt(last, 16)]]);
    }),
  );
}

describe("the display face's two files", () => {
  it("the committed basic file is the installed Anton cut to the basic characters (else: npm run font:subset)", async () => {
    expect(readFileSync(BASIC_FONT).equals(await basicSubset())).toBe(true);
  });

  it("global.css gives the basic file exactly the basic characters, and the Latin file the rest of Latin", () => {
    expect(faces).toHaveLength(2);
    const [basic, rest] = faces;
    expect(basic.src).toBe(`../fonts/${path.basename(BASIC_FONT)}`);
    expect(basic.range).toBe(unicodeRange(BASIC_RANGES));
    expect(rest.src).toBe("~@fontsource/anton/files/anton-latin-400-normal.woff2");
    // The range a page that preloads the Latin file declares again (src/components/display-font-preload.tsx).
    expect(rest.range).toBe(REST_OF_LATIN_RANGE);

    const latin = points(
      (
        JSON.parse(readFileSync(path.join(ROOT, "node_modules/@fontsource/anton/unicode.json"), "utf8")) as {
          latin: string;
        }
      ).latin,
    );
    const basicPoints = points(basic.range ?? "");
    const restPoints = points(rest.range ?? "");
    // Never both files for one character, and no Latin character left without Anton.
    expect([...basicPoints].filter((point) => restPoints.has(point))).toEqual([]);
    expect([...latin].filter((point) => !basicPoints.has(point) && !restPoints.has(point))).toEqual([]);
    expect([...basicPoints, ...restPoints].filter((point) => !latin.has(point))).toEqual([]);
  });

  it("the weekly chart's committed font is the installed Anton cut to the basic characters, as TrueType (else: npm run font:subset)", async () => {
    expect(readFileSync(CHART_FONT_MODULE, "utf8")).toBe(await chartFontModule());
  });

  it("the basic file is small enough to arrive with the hero picture", () => {
    expect(readFileSync(BASIC_FONT).length).toBeLessThan(14 * 1024);
  });

  it("a heading needs the Latin file for a sign the small file lacks, as written or in capitals", () => {
    expect(needsRestOfLatin("The Purpose Effect: “Patience” — at the café, naïve, Straße…")).toBe(false);
    expect(needsRestOfLatin("Fathers\u00a0who build")).toBe(false);
    expect(needsRestOfLatin("A coffee for €5")).toBe(true);
    expect(needsRestOfLatin("Purpose™")).toBe(true);
    expect(needsRestOfLatin("«Patience»")).toBe(true);
    // "ÿ" is in the small file, its capital "Ÿ" (U+0178) is not.
    expect(needsRestOfLatin("ÿ")).toBe(true);
  });
});
