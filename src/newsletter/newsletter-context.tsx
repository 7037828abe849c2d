import { graphql } from "gatsby";
import React, { createContext, useCallback, useContext, useMemo, useState } from "react";
import type { Newsletter } from "../content/schema";
import { SignupDialog } from "./signup-dialog";
import { SubscriptionLinkDialog } from "./subscription-link-dialog";

interface NewsletterContextValue {
  texts: Newsletter;
  brandName: string;
  openDialog: () => void;
}

const NewsletterContext = createContext<NewsletterContextValue | null>(null);

function useNewsletterContext(): NewsletterContextValue {
  const value = useContext(NewsletterContext);
  if (!value) throw new Error("Newsletter components must be inside <NewsletterProvider>.");
  return value;
}

export const useNewsletterTexts = () => {
  const { texts, brandName } = useNewsletterContext();
  return { texts, brandName };
};

export const useSignupDialog = () => ({ openDialog: useNewsletterContext().openDialog });

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
  const openDialog = useCallback(() => setDialogOpen(true), []);
  const closeDialog = useCallback(() => setDialogOpen(false), []);
  const value = useMemo(() => ({ texts, brandName, openDialog }), [texts, brandName, openDialog]);
  return (
    <NewsletterContext.Provider value={value}>
      {children}
      <SignupDialog open={dialogOpen} onClose={closeDialog} />
      <SubscriptionLinkDialog />
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
      ...LinkScreen
    }
    unsubscribe {
      ...LinkScreen
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

  fragment LinkScreen on NewsletterConfirm {
    title
    text
    buttonLabel
    pendingLabel
    successTitle
    successText
  }
`;
