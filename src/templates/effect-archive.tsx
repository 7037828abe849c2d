import { graphql, type HeadFC, type PageProps } from "gatsby";
import { EffectArchive } from "../components/effects/effect-archive";
import { SiteHeader } from "../components/effects/site-header";
import { Footer } from "../components/footer";
import { Layout } from "../components/layout";
import { Seo } from "../components/seo/seo";
import { archiveStructuredData } from "../components/seo/effect-structured-data";
import type { ArchivePageContext } from "../effects/publication";
import { InlineSignup } from "../newsletter/inline-signup";
import { NewsletterProvider } from "../newsletter/newsletter-context";
import type { EffectPageData } from "./effect";

const pageLabel = (template: string, { page, pageCount }: ArchivePageContext): string =>
  template.replace("{page}", String(page)).replace("{pages}", String(pageCount));

/** The archive of published Effects, newest first, 20 a page (`/effects/`, `/effects/page/2/`, ...). */
export default function EffectArchivePage({
  data,
  pageContext,
}: PageProps<EffectPageData, ArchivePageContext>) {
  const { brand, landing, newsletter, effectPages } = data;
  return (
    <NewsletterProvider texts={newsletter} brandName={brand.name}>
      <Layout
        header={<SiteHeader brandName={brand.name} archiveLabel={effectPages.effect.archiveLabel} />}
        footer={<Footer brandName={brand.name} tagline={brand.hero.tagline} footer={landing.footer} />}
      >
        <EffectArchive
          archive={pageContext}
          texts={effectPages.archive}
          pageLabel={pageLabel(effectPages.archive.pageLabel, pageContext)}
        />
        <InlineSignup />
      </Layout>
    </NewsletterProvider>
  );
}

export const Head: HeadFC<EffectPageData, ArchivePageContext> = ({ data, pageContext, location }) => {
  const { archive, name } = data.effectPages;
  const title =
    pageContext.page === 1 ? archive.title : `${archive.title}, ${pageLabel(archive.pageLabel, pageContext)}`;
  return (
    <Seo
      brand={data.brand}
      newsletterName={name}
      title={title}
      description={archive.intro}
      pathname={location.pathname}
      structuredData={archiveStructuredData(data.brand, {
        name: title,
        description: archive.intro,
        path: location.pathname,
        posts: pageContext.entries.map((entry) => ({
          headline: entry.title,
          description: entry.summary,
          path: entry.path,
          datePublished: entry.publishedAt,
        })),
      })}
    />
  );
};

export const query = graphql`
  query EffectArchivePage {
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
`;
