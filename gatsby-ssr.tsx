import type { GatsbySSR } from "gatsby";
import antonLatin from "@fontsource/anton/files/anton-latin-400-normal.woff2";
import "./src/styles/global.css";

// The display font starts downloading with the HTML, so it is usually there before the first
// paint (global.css declares it with font-display: optional).
const preloadedFonts = [antonLatin];

export const onRenderBody: GatsbySSR["onRenderBody"] = ({ setHtmlAttributes, setHeadComponents }) => {
  setHtmlAttributes({ lang: "en" });
  setHeadComponents(
    preloadedFonts.map((href) => (
      <link key={href} rel="preload" href={href} as="font" type="font/woff2" crossOrigin="anonymous" />
    )),
  );
};
