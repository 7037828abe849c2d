-- Where each reader came from, kept from the signup that made the address's row (a later signup of
-- the same address changes none of it): the form (the dialog, the landing page's card, an Effect's,
-- the archive's), the page it was on, the host of the site that sent the visitor there (never the
-- whole address), and the utm_* of the address the visit began at. All optional: a value the
-- function's parser does not accept is never stored (contract/signup-source.ts); the checks below
-- repeat its limits. No cookie and no IP address is behind any of it.
alter table subscribers
  add column if not exists signup_form text check (signup_form in ('dialog', 'inline', 'effect', 'archive')),
  add column if not exists signup_page text check (char_length(signup_page) between 1 and 200),
  add column if not exists referrer_host text check (char_length(referrer_host) between 1 and 253),
  add column if not exists utm_source text check (char_length(utm_source) between 1 and 100),
  add column if not exists utm_medium text check (char_length(utm_medium) between 1 and 100),
  add column if not exists utm_campaign text check (char_length(utm_campaign) between 1 and 100);
