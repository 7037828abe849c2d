/**
 * The characters of the display face's small file (src/fonts/anton-basic-400-normal.woff2, made
 * by `npm run font:subset`): ASCII's printable characters, the no-break space, the middle dot, the
 * accented letters of Western Europe (À to ÿ), dashes, curly quotes, the bullet and the ellipsis.
 * global.css gives this file exactly these characters and @fontsource's Latin file the rest.
 */
export const BASIC_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x20, 0x7e],
  [0xa0, 0xa0],
  [0xb7, 0xb7],
  [0xc0, 0xff],
  [0x2013, 0x2014],
  [0x2018, 0x2019],
  [0x201c, 0x201d],
  [0x2022, 0x2022],
  [0x2026, 0x2026],
];

/**
 * global.css's unicode-range for @fontsource's Latin file: the rest of Latin, every Latin
 * character the small file lacks (scripts/__tests__/display-font.test.ts checks the two agree).
 */
export const REST_OF_LATIN_RANGE =
  "U+0000-001F, U+007F-009F, U+00A1-00B6, U+00B8-00BF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, " +
  "U+02DC, U+0304, U+0308, U+0329, U+2000-2012, U+2015-2017, U+201A-201B, U+201E-2021, U+2023-2025, " +
  "U+2027-206F, U+20AC, U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD";

const inBasic = (point: number) => BASIC_RANGES.some(([first, last]) => point >= first && point <= last);

/**
 * Whether `text`, as written or in capitals (the headings' `uppercase`), has a character the small
 * file lacks, such as "€" or "™": a heading with one needs the Latin file too.
 */
export function needsRestOfLatin(text: string): boolean {
  return [...`${text}${text.toUpperCase()}`].some((character) => {
    const point = character.codePointAt(0) ?? 0;
    return !/\s/.test(character) && !inBasic(point);
  });
}
