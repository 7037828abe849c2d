// The frame of the Effects' pages (header, newsletter, footer), and the site's frame without the newsletter.
import { graphql } from "gatsby";
import React from "react";
import type { Brand, EffectPages, Landing, Newsletter } from "../../content/schema";
import { InlineSignup } from "../../newsletter/inline-signup";
import { NewsletterProvider } from "../../newsletter/newsletter-context";
import { Footer } from "../footer";
import { Layout } from "../layout";
import { SiteHeader } from "./site-header";
import { StaticHtml } from "../../loading/static-html";

/** What every page of the Effects queries (`...EffectsPageContent`). */
export interface EffectsPageData {
  brand: Brand;
  landing: Pick<Landing, "footer">;
  newsletter: Newsletter;
  effectPages: Pick<EffectPages, "name" | "archive" | "effect">;
}

interface EffectsFrameProps {
  data: EffectsPageData;
  /** Which page of the Effects this is: the inline card's name in the signups it sends. */
  form: "effect" | "archive";
  /** The page's path (Gatsby's `location.pathname`). */
  page: string;
  children: React.ReactNode;
}

/** The banner, the page's own content and the footer: the Effects' pages and the privacy page. */
export function SiteFrame({
  brand,
  footer,
  archiveLabel,
  children,
}: {
  brand: Brand;
  footer: Landing["footer"];
  archiveLabel: string;
  children: React.ReactNode;
}) {
  return (
    <Layout
      header={
        <StaticHtml name="site-header">
          <SiteHeader brandName={brand.name} archiveLabel={archiveLabel} />
        </StaticHtml>
      }
      footer={<Footer brandName={brand.name} tagline={brand.hero.tagline} footer={footer} />}
    >
      {children}
    </Layout>
  );
}

/** The frame of the Effects' pages: the banner, the page's own content, the inline signup card, the footer. */
export function EffectsFrame({ data, form, page, children }: EffectsFrameProps) {
  const { brand, landing, newsletter, effectPages } = data;
  return (
    <NewsletterProvider texts={newsletter} brandName={brand.name} page={page}>
      <SiteFrame brand={brand} footer={landing.footer} archiveLabel={effectPages.effect.archiveLabel}>
        {children}
        <InlineSignup form={form} />
      </SiteFrame>
    </NewsletterProvider>
  );
}

export const query = graphql`
  fragment EffectsPageContent on Query {
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
  }
`;
