// The deferred scripts in the pre-rendered HTML.
import type { GatsbySSR } from "gatsby";
import antonBasic from "./src/fonts/anton-basic-400-normal.woff2";
import { deferScripts } from "./src/loading/defer-scripts";
import { preloadsFirst } from "./src/loading/head-order";
import "./src/styles/global.css";

// The display font's basic file starts downloading with the HTML, so it is usually there before
// the first paint (global.css declares it with font-display: optional).
const preloadedFonts = [antonBasic];

export const onRenderBody: GatsbySSR["onRenderBody"] = ({ setHtmlAttributes, setHeadComponents }) => {
  setHtmlAttributes({ lang: "en" });
  setHeadComponents(
    preloadedFonts.map((href) => (
      <link key={href} rel="preload" href={href} as="font" type="font/woff2" crossOrigin="anonymous" />
    )),
  );
};

// The scripts wait until the page has loaded (src/loading/script-starter.ts); the preloads come
// before the inlined stylesheet (src/loading/head-order.ts).
export const onPreRenderHTML: GatsbySSR["onPreRenderHTML"] = ({
  getHeadComponents,
  replaceHeadComponents,
  getPostBodyComponents,
  replacePostBodyComponents,
  pathname,
}) => {
  replaceHeadComponents(preloadsFirst(getHeadComponents()));
  replacePostBodyComponents(deferScripts(getPostBodyComponents(), pathname));
};
