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
