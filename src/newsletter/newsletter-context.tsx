// `NewsletterProvider`: the texts, the dialog's state, a remembered early click.
import { graphql } from "gatsby";
import React, { lazy, Suspense, useCallback, useEffect, useMemo, useState } from "react";
import type { Newsletter } from "../content/schema";
import { SIGNUP_WANTED } from "../loading/starter-names";
import { SignupDialog } from "./signup-dialog";
import { readSubscriptionLink } from "./subscription-link";
import { useHydrated } from "./use-hydrated";
import { NewsletterContext } from "./use-newsletter";

// Only visitors who arrive from a link in the e-mail need this dialog: it is downloaded for them alone.
const SubscriptionLinkDialog = lazy(
  () => import(/* webpackChunkName: "subscription-link" */ "./subscription-link-dialog"),
);

interface NewsletterProviderProps {
  texts: Newsletter;
  brandName: string;
  /** The page's path (Gatsby's `location.pathname`), the same in the pre-rendered HTML and the browser. */
  page: string;
  children: React.ReactNode;
}

/**
 * Holds the newsletter's texts and the signup dialog, so any button on the page can open it,
 * and answers the confirm and unsubscribe links from the e-mails (`/?confirm=…`, `/?unsubscribe=…`).
 */
export function NewsletterProvider({ texts, brandName, page, children }: NewsletterProviderProps) {
  const [dialogOpen, setDialogOpen] = useState(false);
  const hydrated = useHydrated();
  // False in the pre-rendered HTML, read from the address once the page runs in the browser (the
  // link's dialog removes the parameter when it is done).
  const arrivedFromLink = hydrated && readSubscriptionLink(window.location.search) !== null;
  const openDialog = useCallback(() => setDialogOpen(true), []);
  const closeDialog = useCallback(() => setDialogOpen(false), []);
  // After the render that turned the triggers into buttons.
  useEffect(() => {
    if (hydrated) openRememberedClick(openDialog);
  }, [hydrated, openDialog]);
  const value = useMemo(() => ({ texts, brandName, openDialog, page }), [texts, brandName, openDialog, page]);
  return (
    <NewsletterContext.Provider value={value}>
      {children}
      <SignupDialog open={dialogOpen} onClose={closeDialog} />
      {arrivedFromLink ? (
        <Suspense fallback={null}>
          <SubscriptionLinkDialog />
        </Suspense>
      ) : null}
    </NewsletterContext.Provider>
  );
}

/**
 * A click on a signup trigger made before the scripts arrived (script-starter.ts) opens the dialog
 * now. The trigger, a button by now, takes focus first, so closing the dialog returns focus to it.
 */
function openRememberedClick(openDialog: () => void): void {
  const globals = window as unknown as Record<string, string | undefined>;
  const wanted = globals[SIGNUP_WANTED];
  if (wanted === undefined) return;
  delete globals[SIGNUP_WANTED];
  document.querySelector<HTMLElement>(`button[data-signup-trigger="${CSS.escape(wanted)}"]`)?.focus();
  openDialog();
}

export const query = graphql`
  fragment NewsletterContent on Newsletter {
    dialog {
      title
      text
      emailLabel
      placeholder
      closeLabel
    }
    inline {
      title
      text
      emailLabel
      placeholder
      archiveLabel
    }
    smallPrint {
      text
      privacyLabel
    }
    submitLabel
    pendingLabel
    notices {
      failureTitle
      failureText
      dialogSuccessTitle
      inlineSuccessTitle
      successText
    }
    confirm {
      ...LinkScreenContent
    }
    unsubscribe {
      ...LinkScreenContent
    }
    links {
      cancelLabel
      expiredTitle
      expiredText
      signUpAgainLabel
      invalidTitle
      invalidText
    }
  }
`;
