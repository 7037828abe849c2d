// The page frame: the banner if any, the main landmark, the footer.
import React from "react";

interface LayoutProps {
  children: React.ReactNode;
  footer: React.ReactNode;
  /** A banner above the main landmark (the landing page's hero is inside it instead). */
  header?: React.ReactNode;
}

/** The page frame: the banner if any, the main landmark, then the footer. */
export function Layout({ children, footer, header }: LayoutProps) {
  return (
    <>
      {header}
      {/* Out of the tab order, but a dialog whose opener is gone can return focus here (see Modal). */}
      <main tabIndex={-1} className="focus:outline-none">
        {children}
      </main>
      {footer}
    </>
  );
}
