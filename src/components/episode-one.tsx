// "New Here? Start with Episode One".
import { graphql } from "gatsby";
import type { Landing } from "../content/schema";
import { ExternalLink } from "./external-link";
import { Section } from "./section";

interface EpisodeOneProps {
  section: Landing["episodeOne"];
  videoUrl: string;
}

export function EpisodeOne({ section, videoUrl }: EpisodeOneProps) {
  return (
    <Section id="episode-one" title={section.title} tone="warm">
      <div className="flex flex-col gap-8 md:flex-row md:items-center md:justify-between">
        <p className="max-w-2xl text-lg leading-relaxed text-stone-700">{section.text}</p>
        <ExternalLink href={videoUrl} className="btn-dark shrink-0">
          <PlayIcon />
          {section.buttonLabel}
        </ExternalLink>
      </div>
    </Section>
  );
}

function PlayIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="h-5 w-5 fill-current">
      <path d="M8 5.5v13l10.5-6.5z" />
    </svg>
  );
}

export const query = graphql`
  fragment EpisodeOneContent on LandingEpisodeOne {
    title
    text
    buttonLabel
  }
`;
