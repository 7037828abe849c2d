import { graphql } from "gatsby";
import type { Landing } from "../content/schema";
import { useSignupDialog } from "../newsletter/use-newsletter";
import { ExternalLink } from "./external-link";

interface ClosingCtaProps {
  closing: Landing["closing"];
  urls: { video: string; podcast: string; photo: string };
}

/** The last call to action. "Sign Up" and "Listen Now" open the signup dialog, as the spec asks. */
export function ClosingCta({ closing, urls }: ClosingCtaProps) {
  const { openDialog } = useSignupDialog();
  return (
    <section aria-labelledby="closing-title" className="bg-ember px-5 py-16 text-ink sm:px-8 sm:py-24">
      <div className="mx-auto max-w-4xl text-center">
        <h2 id="closing-title" className="section-title">
          {closing.title}
        </h2>
        <p className="mx-auto mt-5 max-w-2xl text-lg leading-relaxed">{closing.text}</p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <ExternalLink href={urls.video} className="btn-outline-dark">
            {closing.videoLabel}
          </ExternalLink>
          <ExternalLink href={urls.podcast} className="btn-outline-dark">
            {closing.podcastLabel}
          </ExternalLink>
          <ExternalLink href={urls.photo} className="btn-outline-dark">
            {closing.photoLabel}
          </ExternalLink>
        </div>
        <div className="mt-4 flex flex-wrap justify-center gap-3">
          <button type="button" className="btn-dark" onClick={openDialog}>
            {closing.signUpLabel}
          </button>
          <ExternalLink href={urls.video} className="btn-dark">
            {closing.watchLabel}
          </ExternalLink>
          <button type="button" className="btn-dark" onClick={openDialog}>
            {closing.listenLabel}
          </button>
        </div>
      </div>
    </section>
  );
}

export const query = graphql`
  fragment ClosingContent on LandingClosing {
    title
    text
    videoLabel
    podcastLabel
    photoLabel
    signUpLabel
    watchLabel
    listenLabel
  }
`;
