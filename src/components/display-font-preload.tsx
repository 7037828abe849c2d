// The display face's Latin file preloaded by a page whose heading needs it (src/fonts/basic-ranges.ts).
import antonLatin from "@fontsource/anton/files/anton-latin-400-normal.woff2";
import { needsRestOfLatin } from "../fonts/basic-ranges";

/**
 * For a page's Head: every page preloads the display face's small file (gatsby-ssr.tsx); a page
 * whose heading in that face has a sign the small file lacks (€, ™, «) also preloads the Latin
 * file, so that sign shows in Anton on a first visit too (font-display: optional keeps a font that
 * arrives late out of the page).
 */
export function DisplayFontPreload({ headings }: { headings: string[] }) {
  if (!headings.some(needsRestOfLatin)) return null;
  return <link rel="preload" href={antonLatin} as="font" type="font/woff2" crossOrigin="anonymous" />;
}
