import { type ReactElement, startTransition } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import "./src/styles/global.css";

/**
 * React takes over the pre-rendered page inside a transition, so hydration yields to the browser
 * every few milliseconds instead of blocking it in one long task: a tap made meanwhile is handled
 * at once. A page without pre-rendered HTML (none today) is rendered instead.
 *
 * Typed by hand: Gatsby's own type for this API is React 17's `render`, which returns a value.
 */
export const replaceHydrateFunction = () => (element: ReactElement, root: Element) => {
  if (!document.getElementById("gatsby-focus-wrapper")?.hasChildNodes()) {
    createRoot(root).render(element);
    return;
  }
  startTransition(() => {
    hydrateRoot(root, element);
  });
};
