// Sending a signup, its pending state and notices.
import { useCallback, useRef, useState } from "react";
import { callFunction } from "./functions-client";
import { useNewsletterTexts } from "./use-newsletter";
import { showNotice } from "./notices";

export type SignupResult = "subscribed" | "failed" | "skipped";

/**
 * Sends one address to `send-confirmation`, with the form's other fields (where the signup came
 * from), and tells the visitor how it went. `pending` is true while the request runs; a second
 * submit meanwhile, or an empty address, sends nothing ("skipped").
 */
export function useSignup(successTitle: string) {
  const { texts } = useNewsletterTexts();
  const [pending, setPending] = useState(false);
  const inFlight = useRef(false);

  const submit = useCallback(
    async (email: string, fields: Record<string, unknown> = {}): Promise<SignupResult> => {
      const address = email.trim();
      if (address === "" || inFlight.current) return "skipped";
      inFlight.current = true;
      setPending(true);
      const result = await callFunction("send-confirmation", { ...fields, email: address });
      inFlight.current = false;
      setPending(false);
      if (result.ok) {
        void showNotice({ tone: "success", title: successTitle, description: texts.notices.successText });
        return "subscribed";
      }
      console.error("Newsletter signup failed:", result.error);
      void showNotice({
        tone: "error",
        title: texts.notices.failureTitle,
        description: texts.notices.failureText,
      });
      return "failed";
    },
    [successTitle, texts],
  );

  return { pending, submit };
}

export type Signup = ReturnType<typeof useSignup>;
