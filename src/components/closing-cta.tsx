// The closing call to action: "Sign Up" and "Listen Now".
import { graphql } from "gatsby";
import type { Landing } from "../content/schema";
import { SignupTrigger } from "../newsletter/signup-trigger";
import { ExternalLink } from "./external-link";
import { StaticHtml } from "../loading/static-html";

interface ClosingCtaProps {
  closing: Landing["closing"];
  urls: { video: string; podcast: string; photo: string };
}

/** The last call to action. "Sign Up" and "Listen Now" open the signup dialog. */
export function ClosingCta({ closing, urls }: ClosingCtaProps) {
  return (
    <section aria-labelledby="closing-title" className="bg-ember px-5 py-16 text-ink sm:px-8 sm:py-24">
      <div className="mx-auto max-w-4xl text-center">
        {/* The signup triggers below are hydrated; this is not (src/loading/static-html.tsx). */}
        <StaticHtml name="closing-text">
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
        </StaticHtml>
        <div className="mt-4 flex flex-wrap justify-center gap-3">
          <SignupTrigger name="sign-up" className="btn-dark">
            {closing.signUpLabel}
          </SignupTrigger>
          <ExternalLink href={urls.video} className="btn-dark">
            {closing.watchLabel}
          </ExternalLink>
          <SignupTrigger name="listen" className="btn-dark">
            {closing.listenLabel}
          </SignupTrigger>
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
