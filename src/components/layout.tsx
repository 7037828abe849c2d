import React from "react";

/** The page frame: the main landmark, then the footer. */
export function Layout({ children, footer }: { children: React.ReactNode; footer: React.ReactNode }) {
  return (
    <>
      {/* Out of the tab order, but a dialog whose opener is gone can return focus here (see Modal). */}
      <main tabIndex={-1} className="focus:outline-none">
        {children}
      </main>
      {footer}
    </>
  );
}
