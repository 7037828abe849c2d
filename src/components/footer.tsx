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
          © {new Date().getFullYear()} {brandName} · {tagline}
        </p>
        <p>{note}</p>
      </div>
    </footer>
  );
}
