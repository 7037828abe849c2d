// The previous and next Effect.
import { graphql } from "gatsby";
import type { EffectLink } from "../../effects/publication";

interface EffectNeighboursProps {
  previous: EffectLink | null;
  next: EffectLink | null;
  labels: { previousLabel: string; nextLabel: string };
}

function Neighbour({ link, label, align }: { link: EffectLink; label: string; align: "start" | "end" }) {
  return (
    <a
      href={link.path}
      rel={align === "start" ? "prev" : "next"}
      className={`group block rounded-2xl bg-white p-5 shadow ring-1 ring-ink/5 hover:ring-ember ${
        align === "end" ? "sm:text-right" : ""
      }`}
    >
      <span className="block text-sm font-semibold uppercase tracking-wider text-ember-text">{label}</span>
      <span className="mt-1 block text-lg font-semibold text-ink group-hover:underline">{link.title}</span>
      <span className="mt-1 block text-sm text-stone-600">{link.dateLabel}</span>
    </a>
  );
}

/** The Effects of the day before and the day after, when there are any. */
export function EffectNeighbours({ previous, next, labels }: EffectNeighboursProps) {
  if (!previous && !next) return null;
  return (
    <nav aria-label={`${labels.previousLabel}, ${labels.nextLabel}`} className="bg-cream px-5 pb-14 sm:px-8">
      <div className="mx-auto grid max-w-3xl gap-4 sm:grid-cols-2">
        <div>
          {previous ? <Neighbour link={previous} label={labels.previousLabel} align="start" /> : null}
        </div>
        <div>{next ? <Neighbour link={next} label={labels.nextLabel} align="end" /> : null}</div>
      </div>
    </nav>
  );
}

export const query = graphql`
  fragment EffectLink on Effect {
    path
    title
    dateLabel
  }
`;
