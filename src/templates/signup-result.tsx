// The pages a signup without JavaScript lands on.
import { graphql, type HeadFC, type PageProps } from "gatsby";
import type { Brand, EffectPages, Newsletter } from "../content/schema";
import { Seo } from "../components/seo/seo";
import {
  SIGNUP_CARD_ANCHOR,
  type SignupResult,
} from "../../supabase/functions/_shared/contract/signup-result-pages";

export interface SignupResultContext {
  result: SignupResult;
}

interface SignupResultData {
  brand: Brand;
  newsletter: Pick<Newsletter, "notices" | "formResults">;
  effectPages: Pick<EffectPages, "name">;
}

/** What each page says: the notices' own texts for welcome and failure, as the issue asks. */
function resultTexts(
  { notices, formResults }: SignupResultData["newsletter"],
  result: SignupResult,
): { title: string; text: string; link: { label: string; href: string } } {
  const retry = { label: formResults.retryLabel, href: `/#${SIGNUP_CARD_ANCHOR}` };
  switch (result) {
    case "subscribed":
      return {
        title: notices.inlineSuccessTitle,
        text: notices.successText,
        link: { label: formResults.homeLabel, href: "/" },
      };
    case "rateLimited":
      return { title: formResults.rateLimitedTitle, text: formResults.rateLimitedText, link: retry };
    case "invalid":
      return { title: formResults.invalidTitle, text: formResults.invalidText, link: retry };
    case "failed":
      return { title: notices.failureTitle, text: notices.failureText, link: retry };
  }
}

/**
 * Where a signup sent without JavaScript lands: `send-confirmation` answers the plain form post
 * with a redirect to one of these pages (supabase/functions/_shared/contract/signup-result-pages.ts).
 */
export default function SignupResultPage({
  data,
  pageContext,
}: PageProps<SignupResultData, SignupResultContext>) {
  const { title, text, link } = resultTexts(data.newsletter, pageContext.result);
  return (
    <main className="flex min-h-screen items-center justify-center bg-ink px-5 py-16 text-center text-cream">
      <div className="max-w-xl">
        <p className="text-sm font-semibold uppercase tracking-[0.2em] text-ember-bright">
          {data.brand.name}
        </p>
        <h1 className="mt-4 font-display text-4xl uppercase sm:text-5xl">{title}</h1>
        <p className="mx-auto mt-4 max-w-md text-lg text-cream/85">{text}</p>
        {/* A plain link: Gatsby's <Link> would fetch the landing page's code from here. */}
        <a href={link.href} className="btn-primary mt-8">
          {link.label}
        </a>
      </div>
    </main>
  );
}

export const Head: HeadFC<SignupResultData, SignupResultContext> = ({ data, pageContext, location }) => (
  <Seo
    brand={data.brand}
    newsletterName={data.effectPages.name}
    title={resultTexts(data.newsletter, pageContext.result).title}
    pathname={location.pathname}
    noindex
  />
);

export const query = graphql`
  query SignupResultPage {
    brand {
      ...BrandContent
    }
    newsletter {
      notices {
        failureTitle
        failureText
        inlineSuccessTitle
        successText
      }
      formResults {
        homeLabel
        retryLabel
        rateLimitedTitle
        rateLimitedText
        invalidTitle
        invalidText
      }
    }
    effectPages {
      name
    }
  }
`;
