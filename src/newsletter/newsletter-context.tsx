import { graphql } from "gatsby";
import React, { lazy, Suspense, useCallback, useMemo, useState, useSyncExternalStore } from "react";
import type { Newsletter } from "../content/schema";
import { SignupDialog } from "./signup-dialog";
import { readSubscriptionLink } from "./subscription-link";
import { NewsletterContext } from "./use-newsletter";

// Only visitors who arrive from a link in the e-mail need this dialog: it is downloaded for them alone.
const SubscriptionLinkDialog = lazy(
  () => import(/* webpackChunkName: "subscription-link" */ "./subscription-link-dialog"),
);

// The address is read once; the dialog itself removes the parameter when it is done.
const ignoreChanges = () => () => undefined;

interface NewsletterProviderProps {
  texts: Newsletter;
  brandName: string;
  children: React.ReactNode;
}

/**
 * Holds the newsletter's texts and the signup dialog, so any button on the page can open it,
 * and answers the confirm and unsubscribe links from the e-mails (`/?confirm=…`, `/?unsubscribe=…`).
 */
export function NewsletterProvider({ texts, brandName, children }: NewsletterProviderProps) {
  const [dialogOpen, setDialogOpen] = useState(false);
  // False in the pre-rendered HTML, read from the address once the page runs in the browser.
  const arrivedFromLink = useSyncExternalStore(
    ignoreChanges,
    () => readSubscriptionLink(window.location.search) !== null,
    () => false,
  );
  const openDialog = useCallback(() => setDialogOpen(true), []);
  const closeDialog = useCallback(() => setDialogOpen(false), []);
  const value = useMemo(() => ({ texts, brandName, openDialog }), [texts, brandName, openDialog]);
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
