// The signup dialog "Join the Movement": the signup form in the modal; it closes on success.
import { useRef } from "react";
import { Modal } from "../components/modal";
import { useNewsletterTexts } from "./use-newsletter";
import { SignupForm } from "./signup-form";
import { SmallPrint } from "./small-print";
import { useSignup } from "./use-signup";

interface SignupDialogProps {
  open: boolean;
  onClose: () => void;
}

/** "Join the Movement": the dialog the hero, "Sign Up" and "Listen Now" open. */
export function SignupDialog({ open, onClose }: SignupDialogProps) {
  const { texts, brandName } = useNewsletterTexts();
  const field = useRef<HTMLInputElement>(null);
  const signup = useSignup(texts.notices.dialogSuccessTitle.replace("{brand}", brandName));
  return (
    <Modal
      open={open}
      onClose={onClose}
      titleId="signup-title"
      descriptionId="signup-text"
      closeLabel={texts.dialog.closeLabel}
      initialFocus={field}
      // Closed while the request is pending, the form and the address typed in it would be gone
      // if the request then fails; a failed signup keeps both the dialog and the address.
      dismissible={!signup.pending}
    >
      <h2 id="signup-title" className="pr-8 font-display text-4xl uppercase leading-none">
        {texts.dialog.title}
      </h2>
      <p id="signup-text" className="mb-6 mt-3 text-stone-700">
        {texts.dialog.text}
      </p>
      <SignupForm
        form="dialog"
        layout="stacked"
        label={texts.dialog.emailLabel}
        placeholder={texts.dialog.placeholder}
        signup={signup}
        required
        inputRef={field}
        onSubscribed={onClose}
      />
      <SmallPrint className="mt-4" />
    </Modal>
  );
}
