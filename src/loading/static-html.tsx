// Parts of a page React leaves as the server's HTML: the islands between them are all it hydrates.
import { useState, type ReactNode } from "react";

/** Set by gatsby-browser.tsx while React takes over the pre-rendered page, and only then. */
let hydratingServerHtml = false;

/** React is about to take over (true) or has taken over (false) the pre-rendered page. */
export function setHydratingServerHtml(value: boolean): void {
  hydratingServerHtml = value;
}

/** The attribute that names each static part, so the browser finds the server's HTML for it. */
export const STATIC_HTML_ATTRIBUTE = "data-static-html";

const serverHtml = (name: string): string | null => {
  const element = document.querySelector(`[${STATIC_HTML_ATTRIBUTE}="${CSS.escape(name)}"]`);
  return element === null ? null : element.innerHTML;
};

interface StaticHtmlProps {
  /** Unique on the page: how the browser finds this part's pre-rendered HTML. */
  name: string;
  children: ReactNode;
}

/**
 * A part of the page that never changes once rendered (text, pictures, plain links): React
 * renders it on the server like anything else, and in the browser takes it over as one element
 * holding the server's HTML (`dangerouslySetInnerHTML` with that very HTML), without walking,
 * rendering or hydrating anything inside it. Hydration then costs what the islands cost (the
 * signup triggers, the forms, the dialog, the notices), not the whole page.
 *
 * Only when React takes over the pre-rendered page: rendered anywhere else (`gatsby develop`, the
 * CMS preview, a page rendered in the browser) and for a part the page's HTML does not have, it
 * renders its children as usual. The HTML is read once, when the element first renders, and kept,
 * so React never writes it again (and, should React ever render the element afresh, writes the
 * same HTML). The wrapper is `display: contents`: it changes neither the layout nor what
 * assistive technology reads.
 *
 * Anything inside reacts to nothing: no state, no effects, no handlers, no context that changes.
 */
export function StaticHtml({ name, children }: StaticHtmlProps) {
  const [html] = useState(() => (hydratingServerHtml ? serverHtml(name) : null));
  if (html === null) {
    return (
      <div {...{ [STATIC_HTML_ATTRIBUTE]: name }} className="contents">
        {children}
      </div>
    );
  }
  return (
    <div
      {...{ [STATIC_HTML_ATTRIBUTE]: name }}
      className="contents"
      dangerouslySetInnerHTML={{ __html: html }}
      suppressHydrationWarning
    />
  );
}
