-- Mail as durable jobs: a signup and its confirmation mail job are written in one transaction,
-- and a sender delivers them after the answer, retrying with backoff until they are sent.
create table if not exists mail_jobs (
  id uuid primary key default gen_random_uuid(),
  subscriber_id uuid not null references subscribers (id) on delete cascade,
  kind text not null check (kind in ('confirmation')),
  recipient text not null,
  -- what the mail needs (the raw tokens for its links); cleared once the mail is sent
  payload jsonb,
  status text not null default 'queued' check (status in ('queued', 'sent', 'abandoned')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- a sender holding the job; another may take it over after this time (a crashed sender)
  locked_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);

-- The sender's question: which queued jobs are due?
create index if not exists mail_jobs_due on mail_jobs (next_attempt_at) where status = 'queued';
create index if not exists mail_jobs_subscriber on mail_jobs (subscriber_id);

alter table mail_jobs enable row level security;
