import { graphql, type HeadFC, type PageProps } from "gatsby";
import { EffectArchive } from "../components/effects/effect-archive";
import { EffectsFrame, type EffectsPageData } from "../components/effects/effects-frame";
import { Seo } from "../components/seo/seo";
import { archiveStructuredData } from "../components/seo/effect-structured-data";
import type { ArchivePageContext } from "../effects/publication";

const pageLabel = (template: string, { page, pageCount }: ArchivePageContext): string =>
  template.replace("{page}", String(page)).replace("{pages}", String(pageCount));

/** The archive of published Effects, newest first, 20 a page (`/effects/`, `/effects/page/2/`, ...). */
export default function EffectArchivePage({
  data,
  pageContext,
}: PageProps<EffectsPageData, ArchivePageContext>) {
  const { archive } = data.effectPages;
  return (
    <EffectsFrame data={data}>
      <EffectArchive
        archive={pageContext}
        texts={archive}
        pageLabel={pageLabel(archive.pageLabel, pageContext)}
      />
    </EffectsFrame>
  );
}

export const Head: HeadFC<EffectsPageData, ArchivePageContext> = ({ data, pageContext, location }) => {
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
    ...EffectsPageContent
  }
`;
