// Their header.
import { archivePath } from "../../effects/paths";

interface SiteHeaderProps {
  brandName: string;
  archiveLabel: string;
}

/** The banner of the Effects' pages: home by the brand's name, and the archive. */
export function SiteHeader({ brandName, archiveLabel }: SiteHeaderProps) {
  return (
    <header className="bg-ink px-5 py-5 text-cream sm:px-8">
      <div className="mx-auto flex max-w-3xl flex-wrap items-center justify-between gap-x-6 gap-y-2">
        <a href="/" className="font-display text-2xl uppercase tracking-wide">
          {brandName}
        </a>
        <a href={archivePath(1)} className="font-semibold text-ember-bright underline underline-offset-4">
          {archiveLabel}
        </a>
      </div>
    </header>
  );
}
