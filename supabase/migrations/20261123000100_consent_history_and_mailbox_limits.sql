-- Consent that a stranger cannot overwrite. `consent_source` / `consent_at` now hold the consent
-- that was confirmed (by a click on the mail's link); a signup that is not confirmed yet records
-- its own consent beside it, and only a new confirmation replaces the confirmed one. With
-- `confirmed_at` and `unsubscribed_at`, which a signup no longer touches, an address's history
-- survives a stranger typing it in.
alter table subscribers add column if not exists pending_consent_source text;
alter table subscribers add column if not exists pending_consent_at timestamptz;

-- Rows never confirmed held their signup's consent in the confirmed columns until now.
update subscribers
set pending_consent_source = consent_source, pending_consent_at = consent_at, consent_source = null, consent_at = null
where confirmed_at is null and consent_at is not null and pending_consent_at is null;

-- An address that refused mail for good (the SMTP server answered 5xx): no further mail goes to
-- it until it signs up and confirms again.
alter table subscribers add column if not exists undeliverable_at timestamptz;
alter table subscribers add column if not exists undeliverable_reason text;

-- Confirmation mails per mailbox: `ann+1@example.com` and `Ann+2@example.com` reach one inbox, so
-- the cooldown and the daily cap count them together. Keyed by a hash of the mailbox (its local
-- part without the +tag, case-folded, and its domain).
create table if not exists mailbox_mail_limits (
  mailbox_hash text primary key,
  last_mail_at timestamptz not null,
  mail_day date not null,
  mails_on_day integer not null default 0
);

alter table mailbox_mail_limits enable row level security;

-- Like every newsletter table: nothing for Supabase's API roles (see 20261123000000).
do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table mailbox_mail_limits from %I', api_role);
    end if;
  end loop;
end
$$;
