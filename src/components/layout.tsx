import React from "react";

/** The page frame: the main landmark, then the footer. */
export function Layout({ children, footer }: { children: React.ReactNode; footer: React.ReactNode }) {
  return (
    <>
      <main>{children}</main>
      {footer}
    </>
  );
}
