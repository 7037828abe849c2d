// The display face's Latin file preloaded by a page whose heading needs it (src/fonts/basic-ranges.ts).
import antonLatin from "@fontsource/anton/files/anton-latin-400-normal.woff2";
import { needsRestOfLatin, REST_OF_LATIN_RANGE } from "../fonts/basic-ranges";

/**
 * For a page's Head: every page preloads the display face's small file (gatsby-ssr.tsx); a page
 * whose heading in that face has a sign the small file lacks (€, ™, «) also preloads the Latin
 * file, so that sign shows in Anton on a first visit too.
 *
 * global.css lets the Latin file swap in when it arrives, for the signs nothing announces (a
 * site-wide heading, a dialog, an Effect's subheading). A page that announces it declares the same
 * face again as `optional`: declared later, it is the face the browser tries first, and Chromium
 * holds the first frame up to 100 ms for a preloaded optional font, as for the small file, so the
 * heading is drawn whole in Anton rather than swapped after the first frame. Only a file that
 * misses that window swaps in later, through global.css's face (e2e/landing.test.ts).
 */
export function DisplayFontPreload({ headings }: { headings: string[] }) {
  if (!headings.some(needsRestOfLatin)) return null;
  return (
    <>
      <link rel="preload" href={antonLatin} as="font" type="font/woff2" crossOrigin="anonymous" />
      <style>{`@font-face{font-family:"Anton";font-style:normal;font-weight:400;font-display:optional;src:url("${antonLatin}") format("woff2");unicode-range:${REST_OF_LATIN_RANGE}}`}</style>
    </>
  );
}
