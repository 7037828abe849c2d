-- The owner's weekly report (OWNER_EMAIL), one row a week: the Monday of the week it reports
-- (the brand's calendar). A sender claims the week by inserting its row, so of two send-effect
-- calls at once only one sends; the row says when it was sent. A claim left without `sent_at`
-- (the process died, or the mail transport refused) may be claimed again once it is
-- `claimed_at` plus the lease old, `attempts` times at most (report/owner-report-store.ts).
-- `skipped`: the week came while OWNER_EMAIL was unset, recorded so that this is said once; it is
-- claimed as soon as OWNER_EMAIL is set. No address is kept here.
create table if not exists owner_reports (
  week_start date primary key,
  state text not null check (state in ('skipped', 'claimed', 'sent')),
  claimed_at timestamptz not null,
  claimed_by text check (char_length(claimed_by) <= 200),
  attempts integer not null default 0 check (attempts >= 0),
  sent_at timestamptz,
  note text check (char_length(note) <= 500),
  check ((state = 'sent') = (sent_at is not null))
);

alter table owner_reports enable row level security;

-- Like every newsletter table: nothing for Supabase's API roles (see 20261123000000).
do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table owner_reports from %I', api_role);
    end if;
  end loop;
end
$$;
