/**
 * The reader, for every test of where readers came from: one who lands on the site's front
 * page from a YouTube link with a campaign in the address, and signs up on an Effect's page.
 */

/** The address the visit begins at. */
export const LANDING_WITH_CAMPAIGN = "/?utm_source=podcast&utm_medium=audio&utm_campaign=ep42";

/** The link the visitor followed, on another site. */
export const YOUTUBE_LINK = "https://www.youtube.com/watch?v=x";

/** What the visit's first page records: the referring site's host and the address's campaign. */
export const FROM_YOUTUBE = {
  referrer_host: "www.youtube.com",
  utm_source: "podcast",
  utm_medium: "audio",
  utm_campaign: "ep42",
};

/** All that a signup then says of itself, on the tests' newest Effect's card. */
export const SIGNED_UP_ON_AN_EFFECT = {
  signup_form: "effect",
  signup_page: "/effects/2026-10-22/",
  ...FROM_YOUTUBE,
};
