// The inline signup card: the signup form without a dialog, a real form before and without JavaScript.
import { archivePath } from "../effects/paths";
import { SIGNUP_CARD_ANCHOR } from "../../supabase/functions/_shared/contract/signup-result-pages";
import type { SignupFormName } from "../../supabase/functions/_shared/contract/signup-source";
import { useNewsletterTexts } from "./use-newsletter";
import { SignupForm } from "./signup-form";
import { SmallPrint } from "./small-print";
import { useSignup } from "./use-signup";

/**
 * The newsletter card in the page: the dialog's behaviour without the dialog. `form` names the card
 * in the signups it sends: the landing page's (`inline`), an Effect's or the archive's.
 */
export function InlineSignup({ form }: { form: Exclude<SignupFormName, "dialog"> }) {
  const { texts } = useNewsletterTexts();
  const signup = useSignup(texts.notices.inlineSuccessTitle);
  return (
    <section
      id={SIGNUP_CARD_ANCHOR}
      aria-labelledby="newsletter-title"
      className="bg-cream-deep px-5 py-16 sm:px-8 sm:py-20"
    >
      <div className="mx-auto max-w-3xl rounded-[2rem] bg-white p-8 text-center shadow-xl ring-1 ring-ink/5 sm:p-12">
        <h2 id="newsletter-title" className="section-title">
          {texts.inline.title}
        </h2>
        <p className="mx-auto mb-8 mt-4 max-w-xl text-lg text-stone-700">{texts.inline.text}</p>
        <div className="mx-auto max-w-xl text-left">
          <SignupForm
            form={form}
            layout="inline"
            label={texts.inline.emailLabel}
            placeholder={texts.inline.placeholder}
            signup={signup}
            required={false}
          />
          <SmallPrint className="mt-4 text-center" />
        </div>
        {/* A plain link: Gatsby's <Link> would fetch the archive's code on every landing visit. */}
        <a
          href={archivePath(1)}
          className="mt-6 inline-block font-semibold text-ember-text underline underline-offset-4"
        >
          {texts.inline.archiveLabel}
        </a>
      </div>
    </section>
  );
}
