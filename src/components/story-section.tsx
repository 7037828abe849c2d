// A story section ("My Why", "The Man Behind the Movement"): a title and paragraphs from the content.
import { graphql } from "gatsby";
import type { StorySection as StoryContent } from "../content/schema";
import { Section } from "./section";

interface StorySectionProps {
  id: string;
  story: StoryContent;
  tone?: "light" | "warm" | "dark";
}

/** A titled run of paragraphs: the "why" and the biography. */
export function StorySection({ id, story, tone = "light" }: StorySectionProps) {
  return (
    <Section id={id} title={story.title} tone={tone}>
      <div className="max-w-3xl space-y-5 text-lg leading-relaxed">
        {story.paragraphs.map((paragraph) => (
          <p key={paragraph}>{paragraph}</p>
        ))}
      </div>
    </Section>
  );
}

export const query = graphql`
  fragment StoryContent on StorySection {
    title
    paragraphs
  }
`;
