// The deferred scripts in the pre-rendered HTML, and the signup forms' record of where a visit began.
import type { GatsbySSR } from "gatsby";
import antonBasic from "./src/fonts/anton-basic-400-normal.woff2";
import { deferScripts } from "./src/loading/defer-scripts";
import { preloadsFirst } from "./src/loading/head-order";
import { SIGNUP_SOURCE_SCRIPT } from "./src/newsletter/signup-source";
import "./src/styles/global.css";

// The display font's basic file starts downloading with the HTML, so it is usually there before
// the first paint (global.css declares it with font-display: optional).
const preloadedFonts = [antonBasic];

export const onRenderBody: GatsbySSR["onRenderBody"] = ({
  setHtmlAttributes,
  setHeadComponents,
  setPostBodyComponents,
}) => {
  setHtmlAttributes({ lang: "en" });
  setHeadComponents(
    preloadedFonts.map((href) => (
      <link key={href} rel="preload" href={href} as="font" type="font/woff2" crossOrigin="anonymous" />
    )),
  );
  // Where the visit began, for the signup forms (src/newsletter/signup-source.ts): a module, so it
  // runs once the document is parsed, in a task of its own, with or without Gatsby's scripts.
  setPostBodyComponents([
    <script key="signup-source" type="module" dangerouslySetInnerHTML={{ __html: SIGNUP_SOURCE_SCRIPT }} />,
  ]);
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
