// An Effect of the Day's page.
import { graphql, type HeadFC, type PageProps } from "gatsby";
import { EffectArticle } from "../components/effects/effect-article";
import { EffectNeighbours } from "../components/effects/effect-neighbours";
import { EffectsFrame, type EffectsPageData } from "../components/effects/effects-frame";
import { Seo } from "../components/seo/seo";
import { DisplayFontPreload } from "../components/display-font-preload";
import { StaticHtml } from "../loading/static-html";
import { effectStructuredData } from "../components/seo/effect-structured-data";
import { absoluteUrl } from "../components/seo/structured-data";
import { ShareEffect } from "../components/effects/share-effect";
import { effectCardPath, effectPath } from "../effects/paths";
import { fillPlaceholders } from "../../supabase/functions/_shared/contract/mail-template";
import type { EffectFields } from "../effects/effect-nodes";
import type { EffectLink, EffectPageContext } from "../effects/publication";

interface EffectPageData extends EffectsPageData {
  effect: Pick<EffectFields, "date" | "dateLabel" | "title" | "summary" | "html" | "publishedAt">;
  /** The day before's Effect, and the day after's: none, or one. */
  previous: { nodes: EffectLink[] };
  next: { nodes: EffectLink[] };
}

/** One Effect of the Day (`/effects/YYYY-MM-DD/`), its neighbours, and the inline signup card. */
export default function EffectPage({ data, location }: PageProps<EffectPageData, EffectPageContext>) {
  const { effect } = data.effectPages;
  return (
    <EffectsFrame data={data} form="effect" page={location.pathname}>
      {/* The article's text stays the server's HTML (its StaticHtml is inside EffectArticle); the
          share button under it is an island. */}
      <EffectArticle effect={data.effect} eyebrow={effect.eyebrow}>
        <ShareEffect
          title={data.effect.title}
          url={absoluteUrl(data.brand.siteUrl, effectPath(data.effect.date))}
          texts={effect.share}
        />
      </EffectArticle>
      {/* Plain links: the server's HTML, which React does not hydrate. */}
      <StaticHtml name="effect-neighbours">
        <EffectNeighbours
          previous={data.previous.nodes[0] ?? null}
          next={data.next.nodes[0] ?? null}
          labels={effect}
        />
      </StaticHtml>
    </EffectsFrame>
  );
}

export const Head: HeadFC<EffectPageData, EffectPageContext> = ({ data, location }) => (
  <>
    <DisplayFontPreload headings={[data.effect.title]} />
    <Seo
      brand={data.brand}
      newsletterName={data.effectPages.name}
      title={data.effect.title}
      description={data.effect.summary}
      pathname={location.pathname}
      publishedAt={data.effect.publishedAt}
      image={{
        path: effectCardPath(data.effect.date),
        alt: fillPlaceholders(data.effectPages.effect.cardAlt, {
          title: data.effect.title,
          date: data.effect.dateLabel,
          brand: data.brand.name,
        }),
      }}
      structuredData={effectStructuredData(data.brand, {
        headline: data.effect.title,
        description: data.effect.summary,
        path: location.pathname,
        datePublished: data.effect.publishedAt,
      })}
    />
  </>
);

export const query = graphql`
  query EffectPage($date: Date!, $publishedUpTo: Date!) {
    ...EffectsPageContent
    effectPages {
      effect {
        cardAlt
        share {
          label
          sharedTitle
          sharedText
          copiedTitle
          copiedText
          failedTitle
          failedText
        }
      }
    }
    effect(date: { eq: $date }) {
      date
      dateLabel
      title
      summary
      html
      publishedAt
    }
    previous: allEffect(filter: { date: { lt: $date } }, sort: { date: DESC }, limit: 1) {
      nodes {
        ...EffectLink
      }
    }
    next: allEffect(filter: { date: { gt: $date, lte: $publishedUpTo } }, sort: { date: ASC }, limit: 1) {
      nodes {
        ...EffectLink
      }
    }
  }
`;
