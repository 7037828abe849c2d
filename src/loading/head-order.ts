// The head's preloads ahead of the inlined stylesheet.
import { isValidElement, type ReactNode } from "react";

const isPreload = (component: ReactNode): boolean =>
  isValidElement(component) &&
  component.type === "link" &&
  (component.props as { rel?: unknown }).rel === "preload";

const isImagePreload = (component: ReactNode): boolean =>
  isPreload(component) && isValidElement(component) && (component.props as { as?: unknown }).as === "image";

const isMeta = (component: ReactNode): boolean => isValidElement(component) && component.type === "meta";

/**
 * For `onPreRenderHTML`: the head's `<link rel="preload">` elements (the hero picture's, the
 * display font's) moved up to just after its `<meta>` elements, a picture's first (the largest
 * thing on the first screen), then the others in the order they came. Gatsby puts its inlined
 * stylesheet (about 20 KB) first, and the landing page's Head export last: the hero picture's
 * preload would arrive with the HTML's second round trip. Everything else keeps its place.
 */
export function preloadsFirst(components: ReactNode[]): ReactNode[] {
  const preloads = [
    ...components.filter(isImagePreload),
    ...components.filter((component) => isPreload(component) && !isImagePreload(component)),
  ];
  const rest = components.filter((component) => !isPreload(component));
  const metas = rest.findIndex((component) => !isMeta(component));
  const at = metas === -1 ? rest.length : metas;
  return [...rest.slice(0, at), ...preloads, ...rest.slice(at)];
}
