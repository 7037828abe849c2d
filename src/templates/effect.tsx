import { graphql, type HeadFC, type PageProps } from "gatsby";
import { EffectArticle } from "../components/effects/effect-article";
import { EffectNeighbours } from "../components/effects/effect-neighbours";
import { EffectsFrame, type EffectsPageData } from "../components/effects/effects-frame";
import { Seo } from "../components/seo/seo";
import { effectStructuredData } from "../components/seo/effect-structured-data";
import type { EffectPageContext } from "../effects/publication";

/** One Effect of the Day (`/effects/YYYY-MM-DD/`), its neighbours, and the inline signup card. */
export default function EffectPage({ data, pageContext }: PageProps<EffectsPageData, EffectPageContext>) {
  const { effect } = data.effectPages;
  return (
    <EffectsFrame data={data}>
      <EffectArticle effect={pageContext} eyebrow={effect.eyebrow} />
      <EffectNeighbours previous={pageContext.previous} next={pageContext.next} labels={effect} />
    </EffectsFrame>
  );
}

export const Head: HeadFC<EffectsPageData, EffectPageContext> = ({ data, pageContext, location }) => (
  <Seo
    brand={data.brand}
    newsletterName={data.effectPages.name}
    title={pageContext.title}
    description={pageContext.summary}
    pathname={location.pathname}
    publishedAt={pageContext.publishedAt}
    structuredData={effectStructuredData(data.brand, {
      headline: pageContext.title,
      description: pageContext.summary,
      path: location.pathname,
      datePublished: pageContext.publishedAt,
    })}
  />
);

export const query = graphql`
  query EffectPage {
    ...EffectsPageContent
  }
`;
