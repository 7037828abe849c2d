-- Mail events from the mail provider (bounces and spam complaints, which arrive minutes after the
-- relay accepted a mail): one row per event, keyed by the provider's own event id, so an event
-- delivered twice changes nothing the second time. No address is kept here: the subscriber's id,
-- and the Effect edition the bounced or reported mail was, when one was sent to them before it.
create table if not exists mail_events (
  source text not null check (source in ('resend', 'ses', 'dsn')),
  event_id text not null,
  -- bounce: permanent, the address is suppressed; soft_bounce: temporary, counted per day;
  -- complaint: the reader reported the mail as spam, and is unsubscribed
  kind text not null check (kind in ('bounce', 'soft_bounce', 'complaint')),
  subscriber_id uuid references subscribers (id) on delete set null,
  edition_date date,
  detail text,
  occurred_at timestamptz not null,
  received_at timestamptz not null default now(),
  primary key (source, event_id)
);

create index if not exists mail_events_subscriber on mail_events (subscriber_id);
create index if not exists mail_events_edition on mail_events (edition_date, kind);

alter table mail_events enable row level security;

-- A complaint unsubscribes the address, and the consent record says so: when, and why an address
-- left the list (`link` for the unsubscribe link or the one-click header, `complaint`).
alter table subscribers add column if not exists complained_at timestamptz;
alter table subscribers add column if not exists unsubscribe_reason text;

-- Temporary bounces: three on different days in a row suppress the address (as a permanent bounce
-- does, through undeliverable_at). The day of the latest, and how many days in a row so far.
alter table subscribers add column if not exists soft_bounce_days integer not null default 0;
alter table subscribers add column if not exists last_soft_bounce_day date;

-- Like every newsletter table: nothing for Supabase's API roles (see 20261123000000).
do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table mail_events from %I', api_role);
    end if;
  end loop;
end
$$;
