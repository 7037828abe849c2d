// Hydration inside a transition.
import { type ReactElement, startTransition } from "react";
import { createRoot, hydrateRoot, type Root } from "react-dom/client";
import type { GatsbyBrowser } from "gatsby";
import { setHydratingServerHtml } from "./src/loading/static-html";
import "./src/styles/global.css";

/**
 * React takes over the pre-rendered page inside a transition, and only its islands: the parts in
 * `<StaticHtml>` (src/loading/static-html.tsx) stay the server's HTML, unwalked. What hydration is
 * left yields to the browser every few milliseconds instead of blocking it in one long task: a tap
 * made meanwhile is handled at once. Anything else (`gatsby develop`'s page and its loading
 * indicator, a page without pre-rendered HTML) is rendered instead. The returned function
 * unmounts, as Gatsby asks of this API.
 *
 * Typed by hand: Gatsby's own type for this API is React 17's `render`, which returns a value.
 */
export const replaceHydrateFunction = () => (element: ReactElement, container: Element) => {
  let root: Root | undefined;
  // Gatsby's own test: the page was pre-rendered when its focus wrapper has content.
  const page = document.getElementById("gatsby-focus-wrapper");
  if (page !== null && container.contains(page) && page.hasChildNodes()) {
    setHydratingServerHtml(true);
    startTransition(() => {
      root = hydrateRoot(container, element);
    });
  } else {
    root = createRoot(container);
    root.render(element);
  }
  return () => root?.unmount();
};

// Once the first render is committed, whatever renders later (another page) is rendered in full.
export const onInitialClientRender: GatsbyBrowser["onInitialClientRender"] = () => {
  setHydratingServerHtml(false);
};

/**
 * Gatsby's runtime boots (reads its data, asks for the page's) in the very task that evaluated its
 * own modules (React DOM's ran in the task before, build/react-first.ts), one long task on a slow
 * phone. Waiting for the next task first splits the two; the page is already painted and a click
 * meanwhile is remembered by the starter.
 */
export const onClientEntry = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
