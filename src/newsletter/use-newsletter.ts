/**
 * The newsletter's shared state as its parts read it: the texts, the brand's name, the way to
 * open the signup dialog and the page's path (where its signup forms are). Held by
 * NewsletterProvider (newsletter-context.tsx); kept apart from it so the dialogs the provider
 * renders can read it without importing the provider back.
 */
import { createContext, useContext } from "react";
import type { Newsletter } from "../content/schema";

export interface NewsletterContextValue {
  texts: Newsletter;
  brandName: string;
  openDialog: () => void;
  /** The page's path, which its signup forms send along (`signup_page`). */
  page: string;
}

export const NewsletterContext = createContext<NewsletterContextValue | null>(null);

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

export const useSignupPage = () => useNewsletterContext().page;
