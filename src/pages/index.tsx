// The landing page: the one page query, and the sections in the product's order.
import { graphql, type HeadFC, type PageProps } from "gatsby";
import type { IGatsbyImageData } from "gatsby-plugin-image";
import type {
  Brand,
  Channels,
  CoreValues as CoreValuesContent,
  EffectPages,
  Landing,
  Newsletter,
  Story,
} from "../content/schema";
import { channelUrl } from "../content/channels";
import { ClosingCta } from "../components/closing-cta";
import { CoreValues } from "../components/core-values";
import { EpisodeOne } from "../components/episode-one";
import { Footer } from "../components/footer";
import { Hero } from "../components/hero";
import { HeroPreload } from "../components/hero-picture";
import { Layout } from "../components/layout";
import { Movement } from "../components/movement";
import { Seo } from "../components/seo/seo";
import { landingStructuredData } from "../components/seo/structured-data";
import { StorySection } from "../components/story-section";
import { InlineSignup } from "../newsletter/inline-signup";
import { NewsletterProvider } from "../newsletter/newsletter-context";
import { StaticHtml } from "../loading/static-html";

export interface LandingPageData {
  brand: Brand;
  heroImage: { childImageSharp: { gatsbyImageData: IGatsbyImageData } } | null;
  landing: Landing;
  story: Story;
  channels: Channels;
  coreValues: CoreValuesContent;
  newsletter: Newsletter;
  effectPages: Pick<EffectPages, "name">;
}

export default function IndexPage({ data, location }: PageProps<LandingPageData>) {
  const { brand, heroImage, landing, story, channels, coreValues, newsletter } = data;
  if (!heroImage) throw new Error("src/images/hero.jpg is missing: the hero needs a picture (see README.md)");
  const urls = {
    video: channelUrl(channels.items, "video"),
    podcast: channelUrl(channels.items, "podcast"),
    photo: channelUrl(channels.items, "photo"),
  };
  return (
    <NewsletterProvider texts={newsletter} brandName={brand.name} page={location.pathname}>
      <Layout footer={<Footer brandName={brand.name} tagline={brand.hero.tagline} footer={landing.footer} />}>
        <Hero brand={brand} image={heroImage.childImageSharp.gatsbyImageData} />
        {/* Text and plain links: the server's HTML, which React does not hydrate. */}
        <StaticHtml name="landing-sections">
          <EpisodeOne section={landing.episodeOne} videoUrl={urls.video} />
          <StorySection id="my-why" story={story.why} />
          <Movement channels={channels} />
          <CoreValues values={coreValues} />
          <StorySection id="about" story={story.biography} tone="warm" />
        </StaticHtml>
        <InlineSignup form="inline" />
        <ClosingCta closing={landing.closing} urls={urls} />
      </Layout>
    </NewsletterProvider>
  );
}

export const Head: HeadFC<LandingPageData> = ({ data, location }) => (
  <>
    {/* First in the head: the hero picture is the largest thing on the first screen. */}
    {data.heroImage ? <HeroPreload image={data.heroImage.childImageSharp.gatsbyImageData} /> : null}
    <Seo
      brand={data.brand}
      newsletterName={data.effectPages.name}
      pathname={location.pathname}
      structuredData={landingStructuredData(data.brand, data.channels.items)}
    />
  </>
);

export const query = graphql`
  query LandingPage {
    brand {
      ...BrandContent
    }
    # The hero picture: AVIF, WebP and JPEG in the widths a phone to a wide screen needs, cropped
    # to 16:11, with a blurred placeholder (https://www.gatsbyjs.com/docs/reference/built-in-components/gatsby-plugin-image/).
    # Its sizes are the width it is drawn at (src/components/hero.tsx): the page less its sides
    # (20 px, 32 px from 640 px), at most 720 px; from 1024 px the second of two columns (1.05fr
    # and 1fr, 56 px apart, in at most 1152 px), at most 504 px. A browser takes the smallest file
    # that covers it: on a 390 px phone at 2x, the 720 px one, not the 1080.
    heroImage: file(sourceInstanceName: { eq: "images" }, name: { eq: "hero" }) {
      childImageSharp {
        gatsbyImageData(
          layout: CONSTRAINED
          width: 720
          aspectRatio: 1.4545454545
          quality: 70
          placeholder: BLURRED
          formats: [AUTO, WEBP, AVIF]
          breakpoints: [360, 480, 720, 1080, 1440]
          sizes: "(min-width: 1152px) 504px, (min-width: 1024px) calc((100vw - 120px) / 2.05), (min-width: 784px) 720px, (min-width: 640px) calc(100vw - 64px), calc(100vw - 40px)"
        )
      }
    }
    landing {
      episodeOne {
        ...EpisodeOneContent
      }
      closing {
        ...ClosingContent
      }
      footer {
        ...FooterContent
      }
    }
    story {
      why {
        ...StoryContent
      }
      biography {
        ...StoryContent
      }
    }
    channels {
      ...MovementContent
    }
    coreValues {
      ...CoreValuesContent
    }
    newsletter {
      ...NewsletterContent
    }
    effectPages {
      name
    }
  }
`;
