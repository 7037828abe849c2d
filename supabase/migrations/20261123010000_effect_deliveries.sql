-- The Effect of the Day, sent: one edition per published Effect, one delivery per recipient.
-- Only the sender touches these tables: row-level security is on with no policies, and every
-- privilege is taken back from Supabase's API roles below.

-- An edition keeps the mail as it was when it was prepared (from the published mail.json), so
-- a run that resumes it days later sends the same mail to the rest of its recipients.
create table if not exists effect_editions (
  edition_date date primary key,
  subject text not null,
  html text not null,
  text text not null,
  url text not null,
  -- sending: deliveries are claimed; paused: too many temporary failures in a row, the next run resumes
  status text not null default 'sending' check (status in ('sending', 'paused')),
  consecutive_failures integer not null default 0,
  last_error text,
  prepared_at timestamptz not null default now(),
  paused_at timestamptz
);

alter table effect_editions enable row level security;

-- One row per recipient of an edition, fixed when it is prepared. The unique key makes preparing
-- idempotent and a second delivery to one subscriber impossible.
create table if not exists effect_deliveries (
  id uuid primary key default gen_random_uuid(),
  edition_date date not null references effect_editions (edition_date) on delete cascade,
  subscriber_id uuid not null references subscribers (id) on delete cascade,
  recipient text not null,
  -- queued → sending → sent | failed | skipped; a row a dead sender left in `sending` becomes unknown
  status text not null default 'queued'
    check (status in ('queued', 'sending', 'sent', 'failed', 'skipped', 'unknown')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- the sender holding a `sending` row and until when; a live sender renews it
  lease_owner text,
  lease_until timestamptz,
  last_error text,
  sent_at timestamptz,
  unique (edition_date, subscriber_id)
);

-- The sender's question: which queued deliveries of this edition are due?
create index if not exists effect_deliveries_due on effect_deliveries (edition_date, next_attempt_at)
  where status = 'queued';
create index if not exists effect_deliveries_subscriber on effect_deliveries (subscriber_id);

alter table effect_deliveries enable row level security;

-- The unsubscribe links of Effect mails: each mail gets its own random token, stored only as its
-- SHA-256 hash, so no raw subscriber token is ever kept. A delivery sent again (after a temporary
-- failure or `--retry-unknown`) gets a new token; the earlier ones keep working.
create table if not exists effect_unsubscribe_tokens (
  token_hash text primary key,
  subscriber_id uuid not null references subscribers (id) on delete cascade,
  delivery_id uuid not null references effect_deliveries (id) on delete cascade,
  created_at timestamptz not null default now()
);

create index if not exists effect_unsubscribe_tokens_subscriber on effect_unsubscribe_tokens (subscriber_id);

alter table effect_unsubscribe_tokens enable row level security;

-- An address the mail server refused for good (a 5xx) has `subscribers.undeliverable_at` (added
-- in 20261123000100): no later Effect goes to it until it confirms again, which clears it.

-- As in 20261123000000_revoke_api_roles.sql: nothing for the public API roles.
do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format(
        'revoke all on table effect_editions, effect_deliveries, effect_unsubscribe_tokens from %I',
        api_role
      );
    end if;
  end loop;
end
$$;
