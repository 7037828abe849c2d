/**
 * Where `send-confirmation` sends a visitor whose browser posted the signup card as a plain HTML
 * form (no JavaScript): a `303 See Other` to one of these pages of the site, which the build
 * pre-renders (gatsby-node.ts creates one page per entry). Imported by both sides, so a page the
 * function names always exists. No imports here: the site's build reads this file too.
 */
export const SIGNUP_RESULT_PAGES = {
  /** Accepted: "Welcome to the movement!" / "Check your email for confirmation." */
  subscribed: "/newsletter/welcome/",
  /** Anything that went wrong on our side: "Something went wrong" / "Please try again later." */
  failed: "/newsletter/try-again/",
  /** Over the per-client limit (429). */
  rateLimited: "/newsletter/slow-down/",
  /** An address the function refuses (the browser's own e-mail check usually catches these first). */
  invalid: "/newsletter/check-address/",
} as const;

export type SignupResult = keyof typeof SIGNUP_RESULT_PAGES;

/** Where the inline card is on every page that has one: an empty form post is sent back there. */
export const SIGNUP_CARD_ANCHOR = "newsletter";
