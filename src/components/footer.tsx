// The footer: the brand's line, the channels and the year, on every page.
import { graphql } from "gatsby";
import type { Landing } from "../content/schema";
import { archivePath } from "../effects/paths";

interface FooterProps {
  brandName: string;
  tagline: string;
  footer: Landing["footer"];
}

export function Footer({ brandName, tagline, footer }: FooterProps) {
  return (
    <footer className="bg-ink px-5 py-10 text-cream/80 sm:px-8">
      <div className="mx-auto flex max-w-6xl flex-col gap-2 text-sm sm:flex-row sm:justify-between">
        <p>
          {/* The HTML is built once; a visitor after New Year runs the page in a later year than it
              was built in. The browser's year wins, without a hydration error for the difference. */}
          © <span suppressHydrationWarning>{new Date().getFullYear()}</span> {brandName} · {tagline}
        </p>
        <p className="flex flex-wrap gap-x-4 gap-y-2">
          {/* A plain link: Gatsby's <Link> would fetch the archive's code on every landing visit. */}
          <a href={archivePath(1)} className="font-semibold text-ember-bright underline underline-offset-4">
            {footer.archiveLabel}
          </a>
          <span>{footer.note}</span>
        </p>
      </div>
    </footer>
  );
}

export const query = graphql`
  fragment FooterContent on LandingFooter {
    note
    archiveLabel
  }
`;
