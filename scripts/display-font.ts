/**
 * `npm run font:subset`: writes the display face's small first file, Anton cut down to the
 * characters the site's headings are written in (src/fonts/, committed), and the same characters
 * as TrueType for the owner's weekly chart (`CHART_FONT_MODULE`, committed): resvg draws its text
 * with it on Supabase, where there are no system fonts and the core reads no files.
 *
 * global.css declares Anton twice: this file for BASIC_RANGES, and @fontsource's whole Latin file
 * for the rest of Latin. A page whose headings use only the basic characters downloads 13 KB
 * instead of 19 KB; an Effect whose title has a rarer sign (€, ™, «, Œ) also preloads the Latin
 * file (src/components/display-font-preload.tsx). Run it again after updating @fontsource/anton:
 * scripts/__tests__/display-font.test.ts fails until the committed file matches the installed font.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import subsetFont from "subset-font";
import { BASIC_RANGES } from "../src/fonts/basic-ranges";

export { BASIC_RANGES };

const ROOT = path.resolve(__dirname, "..");

/** The full Latin file of @fontsource/anton, the source of the subset and the second face. */
export const LATIN_FONT = path.join(
  ROOT,
  "node_modules/@fontsource/anton/files/anton-latin-400-normal.woff2",
);
/** The committed subset that global.css declares first and gatsby-ssr.tsx preloads. */
export const BASIC_FONT = path.join(ROOT, "src/fonts/anton-basic-400-normal.woff2");

/** Every code point of `ranges`, in order. */
export function codePoints(ranges: ReadonlyArray<readonly [number, number]>): number[] {
  return ranges.flatMap(([first, last]) =>
    Array.from({ length: last - first + 1 }, (_, index) => first + index),
  );
}

/** The CSS `unicode-range` value for `ranges`, e.g. "U+0020-007E, U+00A0". */
export function unicodeRange(ranges: ReadonlyArray<readonly [number, number]>): string {
  const hex = (point: number) => point.toString(16).toUpperCase().padStart(4, "0");
  return ranges
    .map(([first, last]) => (first === last ? `U+${hex(first)}` : `U+${hex(first)}-${hex(last)}`))
    .join(", ");
}

/** The subset's bytes, made from the installed Latin file. */
export async function basicSubset(): Promise<Buffer> {
  const text = String.fromCodePoint(...codePoints(BASIC_RANGES));
  return subsetFont(readFileSync(LATIN_FONT), text, { targetFormat: "woff2" });
}

/** The weekly chart's font as a module of the core: the basic characters, TrueType (resvg reads no WOFF), base64. */
export const CHART_FONT_MODULE = path.join(ROOT, "supabase/functions/_shared/report/chart-font.ts");

/** The chart font module's text, made from the installed Latin file (formatted as Prettier writes it). */
export async function chartFontModule(): Promise<string> {
  const text = String.fromCodePoint(...codePoints(BASIC_RANGES));
  const font = await subsetFont(readFileSync(LATIN_FONT), text, { targetFormat: "sfnt" });
  return `/**
 * Anton (SIL Open Font License, @fontsource/anton) cut to the display face's basic characters
 * (src/fonts/basic-ranges.ts), as TrueType in base64: the font the owner's weekly chart is drawn
 * with (weekly-chart.ts). Written by \`npm run font:subset\`; do not edit.
 */
export const CHART_FONT_FAMILY = "Anton";

export const CHART_FONT_TTF_BASE64 =
  "${font.toString("base64")}";
`;
}

if (require.main === module) {
  Promise.all([basicSubset(), chartFontModule()])
    .then(([font, chartFont]) => {
      writeFileSync(BASIC_FONT, font);
      console.log(
        `Wrote ${path.relative(ROOT, BASIC_FONT)} (${font.length} bytes) for ${unicodeRange(BASIC_RANGES)}.`,
      );
      writeFileSync(CHART_FONT_MODULE, chartFont);
      console.log(`Wrote ${path.relative(ROOT, CHART_FONT_MODULE)} (${chartFont.length} bytes).`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
