import { graphql, type HeadFC, type PageProps } from "gatsby";
import type { Brand, EffectPages, Landing, Newsletter } from "../content/schema";
import { EffectArticle } from "../components/effects/effect-article";
import { EffectNeighbours } from "../components/effects/effect-neighbours";
import { SiteHeader } from "../components/effects/site-header";
import { Footer } from "../components/footer";
import { Layout } from "../components/layout";
import { Seo } from "../components/seo/seo";
import { effectStructuredData } from "../components/seo/effect-structured-data";
import type { EffectPageContext } from "../effects/publication";
import { InlineSignup } from "../newsletter/inline-signup";
import { NewsletterProvider } from "../newsletter/newsletter-context";

export interface EffectPageData {
  brand: Brand;
  landing: Pick<Landing, "footer">;
  newsletter: Newsletter;
  effectPages: Pick<EffectPages, "name" | "archive" | "effect">;
}

/** One Effect of the Day (`/effects/YYYY-MM-DD/`), its neighbours, and the inline signup card. */
export default function EffectPage({ data, pageContext }: PageProps<EffectPageData, EffectPageContext>) {
  const { brand, landing, newsletter, effectPages } = data;
  return (
    <NewsletterProvider texts={newsletter} brandName={brand.name}>
      <Layout
        header={<SiteHeader brandName={brand.name} archiveLabel={effectPages.effect.archiveLabel} />}
        footer={<Footer brandName={brand.name} tagline={brand.hero.tagline} footer={landing.footer} />}
      >
        <EffectArticle effect={pageContext} eyebrow={effectPages.effect.eyebrow} />
        <EffectNeighbours
          previous={pageContext.previous}
          next={pageContext.next}
          labels={effectPages.effect}
        />
        <InlineSignup />
      </Layout>
    </NewsletterProvider>
  );
}

export const Head: HeadFC<EffectPageData, EffectPageContext> = ({ data, pageContext, location }) => (
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
    brand {
      ...BrandContent
    }
    landing {
      footer {
        ...FooterContent
      }
    }
    newsletter {
      ...NewsletterContent
    }
    effectPages {
      ...EffectPagesContent
    }
  }

  fragment EffectPagesContent on EffectPages {
    name
    archive {
      ...EffectArchiveContent
    }
    effect {
      eyebrow
      previousLabel
      nextLabel
      archiveLabel
    }
  }
`;
