-- Whether a reader is suppressed: its mail was refused for good (a bounce, an SMTP 5xx) since it
-- last confirmed, so nothing goes to it but a new confirmation link. One column that every query
-- reads, kept by PostgreSQL, instead of the same condition written into each module's SQL.
alter table subscribers
  add column if not exists suppressed boolean not null
  generated always as (undeliverable_at is not null and (confirmed_at is null or confirmed_at <= undeliverable_at)) stored;
