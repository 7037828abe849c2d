// The one-click confirm or unsubscribe dialog a mail link opens.
import { graphql } from "gatsby";
import { useEffect, useRef, useState } from "react";
import { Modal } from "../components/modal";
import { callFunction } from "./functions-client";
import { useNewsletterTexts, useSignupDialog } from "./use-newsletter";
import { showNotice } from "./notices";
import {
  functionFor,
  outcomeOf,
  readSubscriptionLink,
  withoutSubscriptionLink,
  type LinkOutcome,
  type SubscriptionLink,
} from "./subscription-link";

type Phase = "ask" | "pending" | Exclude<LinkOutcome, "failed">;

/**
 * Opens for a confirm or unsubscribe link and asks for one click before it calls the backend,
 * so a mail scanner that opens the link confirms nothing.
 */
export default function SubscriptionLinkDialog() {
  const { texts } = useNewsletterTexts();
  const { openDialog } = useSignupDialog();
  // Only ever rendered in the browser (see NewsletterProvider), so the address can be read at once.
  const [link, setLink] = useState<SubscriptionLink | null>(() =>
    readSubscriptionLink(window.location.search),
  );
  const [phase, setPhase] = useState<Phase>("ask");
  const actionButton = useRef<HTMLButtonElement>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  const answered = phase !== "ask" && phase !== "pending";

  // The buttons that had focus are gone once the answer is in: move focus to the answer.
  useEffect(() => {
    if (answered) outcomeRef.current?.focus();
  }, [answered]);

  if (!link) return null;
  const screen = link.action === "confirm" ? texts.confirm : texts.unsubscribe;
  // Answered or dismissed, the link is done with: a reload must not ask again.
  const forgetLink = () =>
    window.history.replaceState(window.history.state, "", withoutSubscriptionLink(window.location));
  const close = () => {
    forgetLink();
    setLink(null);
  };

  const run = async () => {
    setPhase("pending");
    const result = await callFunction(functionFor(link.action), { token: link.token });
    const outcome = outcomeOf(result);
    if (outcome === "failed") {
      // Keep the link in the address bar: the same click, or a reload, may work later.
      console.error(
        `The ${link.action} link could not be processed:`,
        "error" in result ? result.error : result,
      );
      setPhase("ask");
      void showNotice({
        tone: "error",
        title: texts.notices.failureTitle,
        description: texts.notices.failureText,
      });
      return;
    }
    forgetLink();
    setPhase(outcome);
  };

  const signUpAgain = () => {
    close();
    openDialog();
  };

  const content = {
    ask: { title: screen.title, text: screen.text },
    pending: { title: screen.title, text: screen.text },
    done: { title: screen.successTitle, text: screen.successText },
    expired: { title: texts.links.expiredTitle, text: texts.links.expiredText },
    invalid: { title: texts.links.invalidTitle, text: texts.links.invalidText },
  }[phase];

  return (
    <Modal
      open
      onClose={close}
      titleId="link-title"
      descriptionId="link-text"
      closeLabel={texts.dialog.closeLabel}
      initialFocus={actionButton}
      // Closed mid-request, the visitor would miss the answer, and a failure would leave no link
      // in the address bar to try again with.
      dismissible={phase !== "pending"}
    >
      <div
        ref={outcomeRef}
        tabIndex={-1}
        role={answered ? "status" : undefined}
        className="focus:outline-none"
      >
        <h2 id="link-title" className="pr-8 font-display text-3xl uppercase leading-none">
          {content.title}
        </h2>
        <p id="link-text" className="mt-3 text-stone-700">
          {content.text}
        </p>
      </div>
      <div className="mt-7 flex flex-wrap gap-3">
        {!answered ? (
          <>
            <button
              ref={actionButton}
              type="button"
              className="btn-primary"
              disabled={phase === "pending"}
              onClick={run}
            >
              {phase === "pending" ? screen.pendingLabel : screen.buttonLabel}
            </button>
            <button type="button" className="btn-outline-dark" disabled={phase === "pending"} onClick={close}>
              {texts.links.cancelLabel}
            </button>
          </>
        ) : null}
        {phase === "expired" ? (
          <button type="button" className="btn-primary" onClick={signUpAgain}>
            {texts.links.signUpAgainLabel}
          </button>
        ) : null}
      </div>
    </Modal>
  );
}

export const query = graphql`
  fragment LinkScreenContent on LinkScreen {
    title
    text
    buttonLabel
    pendingLabel
    successTitle
    successText
  }
`;
