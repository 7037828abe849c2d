// The 404 page: "Oops! Page not found", a way home, and the attempted path in the console.
import { useEffect } from "react";
import { graphql, Link, type HeadFC, type PageProps } from "gatsby";
import type { Brand, EffectPages, NotFound } from "../content/schema";
import { Seo } from "../components/seo/seo";
import { logMissingPath, MISSING_PATH_SCRIPT } from "../not-found/missing-path-log";

interface NotFoundPageData {
  brand: Brand;
  notFound: NotFound;
  effectPages: Pick<EffectPages, "name">;
}

export default function NotFoundPage({ data, location }: PageProps<NotFoundPageData>) {
  const { notFound } = data;
  useEffect(() => logMissingPath(location.pathname), [location.pathname]);
  return (
    <main className="flex min-h-screen items-center justify-center bg-ink px-5 text-center text-cream">
      <script dangerouslySetInnerHTML={{ __html: MISSING_PATH_SCRIPT }} />
      <div>
        <p className="font-display text-8xl text-ember-bright sm:text-9xl">{notFound.code}</p>
        <h1 className="mt-4 font-display text-4xl uppercase sm:text-5xl">{notFound.title}</h1>
        <p className="mx-auto mt-4 max-w-md text-lg text-cream/85">{notFound.text}</p>
        <Link to="/" className="btn-primary mt-8">
          {notFound.homeLabel}
        </Link>
      </div>
    </main>
  );
}

export const Head: HeadFC<NotFoundPageData> = ({ data, location }) => (
  <Seo
    brand={data.brand}
    newsletterName={data.effectPages.name}
    title={data.notFound.pageTitle}
    pathname={location.pathname}
    noindex
  />
);

export const query = graphql`
  query NotFoundPage {
    brand {
      ...BrandContent
    }
    notFound {
      code
      title
      text
      homeLabel
      pageTitle
    }
    effectPages {
      name
    }
  }
`;
