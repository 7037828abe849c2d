// A titled section of the landing page.
import React from "react";

interface SectionProps {
  id: string;
  title: string;
  intro?: string;
  tone?: "light" | "warm" | "dark";
  children: React.ReactNode;
}

const tones = {
  light: "bg-cream text-ink",
  warm: "bg-cream-deep text-ink",
  dark: "bg-ink text-cream",
} as const;

/** A landing-page section: a landmark named by its heading, with the shared spacing. */
export function Section({ id, title, intro, tone = "light", children }: SectionProps) {
  const headingId = `${id}-title`;
  return (
    <section id={id} aria-labelledby={headingId} className={`${tones[tone]} px-5 py-16 sm:px-8 sm:py-24`}>
      <div className="mx-auto max-w-6xl">
        <h2 id={headingId} className="section-title">
          {title}
        </h2>
        {intro ? (
          <p className={`mt-4 max-w-2xl text-lg ${tone === "dark" ? "text-cream/85" : "text-stone-700"}`}>
            {intro}
          </p>
        ) : null}
        <div className="mt-10">{children}</div>
      </div>
    </section>
  );
}
