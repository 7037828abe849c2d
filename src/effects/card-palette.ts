/**
 * The social cards' colours: the site's four (tailwind.config.js) and the 16 a card's PNG may hold
 * (./palette-png.ts), which are those four and the edges of the large cream, small ember and grey
 * text drawn on the ink.
 */
import type { Rgb } from "./palette-png";

export const INK = "#1c1917";
export const CREAM = "#faf6f0";
export const EMBER = "#f59e0b";
export const MUTED = "#d6d3d1";

export const rgb = (hex: string): Rgb => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)) as never;

/** `count` colours evenly between the ink and `colour`: the edges of text drawn in it. */
function blends(colour: string, count: number): Rgb[] {
  const [ink, to] = [rgb(INK), rgb(colour)];
  return Array.from({ length: count }, (_, step) => {
    const share = (step + 1) / (count + 1);
    return ink.map((value, at) => Math.round(value + (to[at] - value) * share)) as never;
  });
}

/** The card's 16 colours: the site's four, and the edges of the large cream, small ember and grey text. */
export const CARD_PALETTE: Rgb[] = [
  ...[INK, CREAM, EMBER, MUTED].map(rgb),
  ...blends(CREAM, 5),
  ...blends(EMBER, 4),
  ...blends(MUTED, 3),
];
