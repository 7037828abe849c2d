// The hero: title, tagline, author credit, the picture, and "Join the Movement" opening the signup dialog.
import { graphql } from "gatsby";
import type { IGatsbyImageData } from "gatsby-plugin-image";
import type { Brand } from "../content/schema";
import { HeroPicture } from "./hero-picture";
import { SignupTrigger } from "../newsletter/signup-trigger";
import { StaticHtml } from "../loading/static-html";

interface HeroProps {
  brand: Brand;
  /** src/images/hero.jpg, processed at build time. */
  image: IGatsbyImageData;
}

export function Hero({ brand, image }: HeroProps) {
  const { hero, author } = brand;
  return (
    <header className="relative overflow-hidden bg-ink text-cream">
      <div className="mx-auto grid max-w-6xl items-center gap-10 px-5 pb-16 pt-14 sm:px-8 lg:grid-cols-[1.05fr_1fr] lg:gap-14 lg:py-24">
        <div>
          {/* Only the button is hydrated (src/loading/static-html.tsx). */}
          <StaticHtml name="hero-text">
            <p className="text-sm font-semibold uppercase tracking-[0.2em] text-ember-bright">
              {hero.eyebrow}
            </p>
            <h1 className="mt-4 font-display text-6xl uppercase leading-[0.95] sm:text-7xl lg:text-8xl">
              {hero.title}
            </h1>
            <p className="mt-5 font-display text-2xl tracking-[0.12em] text-ember-bright sm:text-3xl">
              {hero.tagline}
            </p>
            <p className="mt-6 max-w-xl text-lg leading-relaxed text-cream/90">{hero.intro}</p>
            <p className="mt-4 text-sm italic text-cream/75">{author.credit}</p>
          </StaticHtml>
          <SignupTrigger name="hero" className="btn-primary mt-8 text-lg">
            {hero.joinLabel}
          </SignupTrigger>
        </div>
        <StaticHtml name="hero-picture">
          <HeroPicture image={image} alt={hero.imageAlt} className="rounded-3xl shadow-2xl shadow-black/40" />
        </StaticHtml>
      </div>
    </header>
  );
}

export const query = graphql`
  fragment HeroContent on BrandHero {
    eyebrow
    title
    tagline
    intro
    joinLabel
    imageAlt
  }
`;
