interface FooterProps {
  brandName: string;
  tagline: string;
  note: string;
}

export function Footer({ brandName, tagline, note }: FooterProps) {
  return (
    <footer className="bg-ink px-5 py-10 text-cream/80 sm:px-8">
      <div className="mx-auto flex max-w-6xl flex-col gap-2 text-sm sm:flex-row sm:justify-between">
        <p>
          {/* The HTML is built once; a visitor after New Year runs the page in a later year than it
              was built in. The browser's year wins, without a hydration error for the difference. */}
          © <span suppressHydrationWarning>{new Date().getFullYear()}</span> {brandName} · {tagline}
        </p>
        <p>{note}</p>
      </div>
    </footer>
  );
}
