// A button that opens the dialog, a link to the card until React runs.
import React from "react";
import { SIGNUP_CARD_ANCHOR } from "../../supabase/functions/_shared/contract/signup-result-pages";
import { useSignupDialog } from "./use-newsletter";
import { useHydrated } from "./use-hydrated";

interface SignupTriggerProps {
  /** Names this trigger for a click remembered before the scripts arrived (script-starter.ts). */
  name: string;
  className: string;
  children: React.ReactNode;
}

/**
 * A button that opens the signup dialog ("Join the Movement", "Sign Up", "Listen Now"). Until
 * React runs it is a link to the inline card, so it is never a dead button: without JavaScript it
 * leads to the card, and with JavaScript the starter remembers the click and the dialog opens as
 * soon as the scripts arrive (NewsletterProvider). `aria-busy` is set by the starter meanwhile.
 */
export function SignupTrigger({ name, className, children }: SignupTriggerProps) {
  const { openDialog } = useSignupDialog();
  const hydrated = useHydrated();
  if (!hydrated) {
    return (
      <a
        href={`#${SIGNUP_CARD_ANCHOR}`}
        data-signup-trigger={name}
        className={`${className} aria-busy:cursor-progress aria-busy:opacity-75 motion-safe:aria-busy:animate-pulse`}
      >
        {children}
      </a>
    );
  }
  return (
    <button type="button" data-signup-trigger={name} className={className} onClick={openDialog}>
      {children}
    </button>
  );
}
