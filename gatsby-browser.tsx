// Hydration inside a transition.
import { type ReactElement, startTransition } from "react";
import { createRoot, hydrateRoot, type Root } from "react-dom/client";
import "./src/styles/global.css";

/**
 * React takes over the pre-rendered page inside a transition, so hydration yields to the browser
 * every few milliseconds instead of blocking it in one long task: a tap made meanwhile is handled
 * at once. Anything else (`gatsby develop`'s page and its loading indicator, a page without
 * pre-rendered HTML) is rendered instead. The returned function unmounts, as Gatsby asks of this API.
 *
 * Typed by hand: Gatsby's own type for this API is React 17's `render`, which returns a value.
 */
export const replaceHydrateFunction = () => (element: ReactElement, container: Element) => {
  let root: Root | undefined;
  // Gatsby's own test: the page was pre-rendered when its focus wrapper has content.
  const page = document.getElementById("gatsby-focus-wrapper");
  if (page !== null && container.contains(page) && page.hasChildNodes()) {
    startTransition(() => {
      root = hydrateRoot(container, element);
    });
  } else {
    root = createRoot(container);
    root.render(element);
  }
  return () => root?.unmount();
};
