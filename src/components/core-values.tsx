// "Core Values": the six cards from content/core-values.yaml, each a title and a description.
import { graphql } from "gatsby";
import type { CoreValues as CoreValuesContent } from "../content/schema";
import { Section } from "./section";

export function CoreValues({ values }: { values: CoreValuesContent }) {
  return (
    <Section id="core-values" title={values.title} intro={values.intro}>
      <ul className="grid gap-5 sm:grid-cols-2 lg:grid-cols-3">
        {values.items.map((value, index) => (
          <li key={value.title} className="rounded-3xl bg-white p-7 shadow-sm ring-1 ring-ink/5">
            <p aria-hidden="true" className="font-display text-3xl text-ember-deep">
              {String(index + 1).padStart(2, "0")}
            </p>
            <h3 className="mt-3 font-display text-3xl uppercase tracking-wide">{value.title}</h3>
            <p className="mt-3 leading-relaxed text-stone-700">{value.description}</p>
          </li>
        ))}
      </ul>
    </Section>
  );
}

export const query = graphql`
  fragment CoreValuesContent on CoreValues {
    title
    intro
    items {
      title
      description
    }
  }
`;
