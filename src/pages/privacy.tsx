// The privacy page (/privacy/): what the newsletter keeps, why, for how long, and how to leave,
// from content/privacy.yaml; linked from the signup forms' small print and every mail's footer.
import { graphql, type HeadFC, type PageProps } from "gatsby";
import type { Brand, EffectPages, Landing, Privacy } from "../content/schema";
import { SiteFrame } from "../components/effects/effects-frame";
import { Seo } from "../components/seo/seo";
import { StaticHtml } from "../loading/static-html";

interface PrivacyPageData {
  brand: Brand;
  landing: Pick<Landing, "footer">;
  effectPages: { name: EffectPages["name"]; effect: Pick<EffectPages["effect"], "archiveLabel"> };
  privacy: Privacy;
}

/** Nothing on it reacts to anything: all of it stays the server's HTML. */
export default function PrivacyPage({ data }: PageProps<PrivacyPageData>) {
  const { brand, landing, effectPages, privacy } = data;
  return (
    <SiteFrame brand={brand} footer={landing.footer} archiveLabel={effectPages.effect.archiveLabel}>
      <StaticHtml name="privacy">
        <article aria-labelledby="privacy-title" className="bg-cream px-5 py-14 sm:px-8 sm:py-20">
          <div className="mx-auto max-w-3xl">
            <h1 id="privacy-title" className="font-display text-5xl uppercase leading-[0.95] sm:text-6xl">
              {privacy.title}
            </h1>
            <p className="mt-6 text-lg text-stone-700">{privacy.intro}</p>
            {privacy.sections.map((section) => (
              <section key={section.title} className="mt-10">
                <h2 className="font-display text-3xl uppercase leading-tight">{section.title}</h2>
                {section.paragraphs.map((paragraph) => (
                  <p key={paragraph} className="mt-4 text-stone-800">
                    {paragraph}
                  </p>
                ))}
              </section>
            ))}
            <a href="/" className="btn-primary mt-12">
              {privacy.backLabel}
            </a>
          </div>
        </article>
      </StaticHtml>
    </SiteFrame>
  );
}

export const Head: HeadFC<PrivacyPageData> = ({ data, location }) => (
  <Seo
    brand={data.brand}
    newsletterName={data.effectPages.name}
    title={data.privacy.pageTitle}
    description={data.privacy.intro}
    pathname={location.pathname}
  />
);

export const query = graphql`
  query PrivacyPage {
    brand {
      ...BrandContent
    }
    landing {
      footer {
        ...FooterContent
      }
    }
    effectPages {
      name
      effect {
        archiveLabel
      }
    }
    privacy {
      pageTitle
      title
      intro
      sections {
        title
        paragraphs
      }
      backLabel
    }
  }
`;
