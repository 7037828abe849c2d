/**
 * The editor's GitHub sign-in, as the `cms-auth` function and the site's two pages around it share
 * it. Supabase serves a function's HTML as plain text, so the function answers no page, and Decap
 * takes the token only from a window on its `base_url`: the popup starts and ends on the site.
 * CMS_SIGN_IN_PATH (Decap's `auth_endpoint`) forwards to `cms-auth` with Decap's query; GitHub's
 * callback sends the popup to CMS_SIGNED_IN_PATH with either `#code=` (one-time, 60 s, exchanged
 * by a POST to `cms-auth/token` whose JSON holds the token, so the token never stands in an
 * address, a log or the history) or `#error=` with one of these reasons, which the page says in
 * words.
 */

export const CMS_SIGN_IN_PATH = "/admin/sign-in/";
export const CMS_SIGNED_IN_PATH = "/admin/signed-in/";

/** Seconds a one-time code may wait for its exchange. */
export const CMS_HANDOFF_SECONDS = 60;

const AGAIN = "Close this window, go back to the content editor and click Login with GitHub again.";

export const CMS_SIGN_IN_REASONS = {
  malformed: `This sign-in address is not one this site made. ${AGAIN}`,
  forged: `This sign-in address is not one this site made. ${AGAIN}`,
  no_cookie: `This sign-in was not started in this browser (or its cookie was blocked), so it cannot finish here. ${AGAIN}`,
  expired: `This sign-in took longer than ten minutes and has expired. ${AGAIN}`,
  replayed: `This sign-in address has already been used. ${AGAIN}`,
  cancelled: `The content editor was not authorized on GitHub, so you are not signed in. ${AGAIN}`,
  github_refused: `GitHub refused the sign-in. ${AGAIN}`,
  github_misconfigured: `The site's GitHub OAuth App is set up wrongly (its client secret or callback URL); the site's owner can check it as docs/deploying.md describes.`,
  github_unreachable: `GitHub could not be reached to finish the sign-in. ${AGAIN}`,
  unavailable: `The site could not record this sign-in just now. ${AGAIN}`,
  not_configured: `The content editor's GitHub sign-in is not set up on this server yet (CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET). The site's owner can set it up as docs/deploying.md describes.`,
  unknown_provider: "This site signs editors in with GitHub only.",
  code_used: `This sign-in has already been finished, or waited too long. ${AGAIN}`,
  no_answer: `The content editor did not take the sign-in. ${AGAIN}`,
  no_opener:
    "This window was not opened by the content editor, so the sign-in cannot reach it. Open /admin/ on the site and click Login with GitHub.",
} as const;

export type CmsSignInReason = keyof typeof CMS_SIGN_IN_REASONS;
