// A page of the archive.
import { graphql, type HeadFC, type PageProps } from "gatsby";
import { EffectArchive } from "../components/effects/effect-archive";
import { EffectsFrame, type EffectsPageData } from "../components/effects/effects-frame";
import { Seo } from "../components/seo/seo";
import { archiveStructuredData } from "../components/seo/effect-structured-data";
import { archivePage, type ArchiveEntry, type ArchivePageContext } from "../effects/publication";

interface EffectArchivePageData extends EffectsPageData {
  allEffect: { nodes: ArchiveEntry[] };
}

const pageLabel = (template: string, { page, pageCount }: ArchivePageContext): string =>
  template.replace("{page}", String(page)).replace("{pages}", String(pageCount));

/** The archive of published Effects, newest first, 20 a page (`/effects/`, `/effects/page/2/`, ...). */
export default function EffectArchivePage({
  data,
  pageContext,
  location,
}: PageProps<EffectArchivePageData, ArchivePageContext>) {
  const { archive } = data.effectPages;
  return (
    <EffectsFrame data={data} form="archive" page={location.pathname}>
      {/* The list is the server's HTML, the search an island (EffectArchive's StaticHtml parts). */}
      <EffectArchive
        archive={archivePage(pageContext, data.allEffect.nodes)}
        texts={archive}
        pageLabel={pageLabel(archive.pageLabel, pageContext)}
      />
    </EffectsFrame>
  );
}

export const Head: HeadFC<EffectArchivePageData, ArchivePageContext> = ({ data, pageContext, location }) => {
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
        posts: data.allEffect.nodes.map((entry) => ({
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
  query EffectArchivePage($limit: Int!, $skip: Int!, $publishedUpTo: Date!) {
    ...EffectsPageContent
    allEffect(filter: { date: { lte: $publishedUpTo } }, sort: { date: DESC }, limit: $limit, skip: $skip) {
      nodes {
        ...EffectLink
        date
        publishedAt
        summary
      }
    }
  }
`;
