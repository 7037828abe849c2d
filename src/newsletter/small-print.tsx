// The small print under the signup forms: what is kept, and the link to the privacy page.
import { PRIVACY_PATH } from "../../supabase/functions/_shared/contract/mail-template";
import { useNewsletterTexts } from "./use-newsletter";

/** One line under a signup form, from content/newsletter.yaml `smallPrint`, linking /privacy/. */
export function SmallPrint({ className = "" }: { className?: string }) {
  const { texts } = useNewsletterTexts();
  return (
    <p className={`text-sm text-stone-600 ${className}`}>
      {texts.smallPrint.text}{" "}
      {/* A plain link: Gatsby's <Link> would fetch the page's code on every visit. */}
      <a href={PRIVACY_PATH} className="font-semibold text-ember-text underline underline-offset-4">
        {texts.smallPrint.privacyLabel}
      </a>
    </p>
  );
}
