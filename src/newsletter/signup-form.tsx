// The one form both use, a real `<form method="post">`.
import React, { useId, useState } from "react";
import type { SignupFormName } from "../../supabase/functions/_shared/contract/signup-source";
import { functionAddress } from "./functions-client";
import { useNewsletterTexts, useSignupPage } from "./use-newsletter";
import type { Signup } from "./use-signup";

interface SignupFormProps {
  /** Which form this is, sent with the signup (`signup_form`). */
  form: SignupFormName;
  label: string;
  placeholder: string;
  /** The request, held by the caller: the dialog stays open while it is pending. */
  signup: Signup;
  /** The dialog's field is required; the inline card's just does nothing when empty (spec §5). */
  required: boolean;
  onSubscribed?: () => void;
  inputRef?: React.Ref<HTMLInputElement>;
  layout: "stacked" | "inline";
}

/**
 * The one e-mail field and its button, shared by the dialog and the inline card. It is a real form
 * posting to `send-confirmation`, so it works before the scripts run and without JavaScript (the
 * function answers with a page of the site); once React runs, the submit is sent as JSON instead,
 * with the form's fields. Two hidden fields say which form and page it is; where the visit began
 * is added to the form as it is submitted (signup-source.ts).
 */
export function SignupForm(props: SignupFormProps) {
  const { form, label, placeholder, signup, required, onSubscribed, inputRef, layout } = props;
  const { texts } = useNewsletterTexts();
  const page = useSignupPage();
  const { pending, submit } = signup;
  const [email, setEmail] = useState("");
  const fieldId = useId();

  const onSubmit = async (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = await submit(email, Object.fromEntries(new FormData(event.currentTarget)));
    if (result === "subscribed") {
      setEmail("");
      onSubscribed?.();
    }
  };

  return (
    <form
      action={functionAddress("send-confirmation")}
      method="post"
      onSubmit={onSubmit}
      className={layout === "inline" ? "flex flex-col gap-3 sm:flex-row" : "flex flex-col gap-3"}
    >
      <input type="hidden" name="signup_form" value={form} />
      <input type="hidden" name="signup_page" value={page} />
      <label htmlFor={fieldId} className="sr-only">
        {label}
      </label>
      <input
        ref={inputRef}
        id={fieldId}
        name="email"
        type="email"
        autoComplete="email"
        inputMode="email"
        required={required}
        placeholder={placeholder}
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        className="field"
      />
      <button type="submit" className="btn-primary shrink-0" disabled={pending}>
        {pending ? texts.pendingLabel : texts.submitLabel}
      </button>
    </form>
  );
}
