-- Which Effect of the Day a reader left by: the edition whose own unsubscribe link (or one-click
-- header) they used, kept beside `unsubscribed_at` and `unsubscribe_reason` and, like them, for
-- the latest time the reader left (a reader who comes back and leaves again keeps only the new
-- one). Null when they left by the confirmation mail's link or by a complaint. `npm run report`
-- counts an Effect's unsubscribes from it (supabase/functions/_shared/report/).
alter table subscribers add column if not exists unsubscribe_edition_date date;
