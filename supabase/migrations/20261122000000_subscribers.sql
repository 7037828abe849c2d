-- Newsletter subscribers: one row per address, whatever its case. Only the functions (through the
-- database owner or service role) read and write it: row-level security is on with no policies,
-- so the public anon key sees nothing.
create table if not exists subscribers (
  id uuid primary key default gen_random_uuid(),
  -- the address as given, trimmed and with its domain lower-cased
  email text not null check (char_length(email) between 3 and 254),
  status text not null default 'pending' check (status in ('pending', 'confirmed', 'unsubscribed')),
  -- SHA-256 (hex) of the random tokens in the latest confirmation mail; the tokens themselves are never stored here
  confirm_token_hash text unique,
  confirm_expires_at timestamptz,
  unsubscribe_token_hash text unique,
  signed_up_at timestamptz not null default now(),
  -- when the latest confirmation mail was queued (the resend cooldown counts from here) and sent
  mail_queued_at timestamptz,
  mail_sent_at timestamptz,
  -- confirmation mails queued on mail_day, for the daily cap
  mail_day date,
  mails_on_day integer not null default 0,
  confirmed_at timestamptz,
  unsubscribed_at timestamptz,
  -- consent: the page the signup came from and when it was given
  consent_source text,
  consent_at timestamptz,
  updated_at timestamptz not null default now()
);

-- One row per address regardless of case: "Ann@Example.com" and "ann@example.com" are the same person.
create unique index if not exists subscribers_email_key on subscribers (lower(email));

-- Purging pending rows that never confirmed, and counting by status.
create index if not exists subscribers_status_signed_up_at on subscribers (status, signed_up_at);

alter table subscribers enable row level security;
