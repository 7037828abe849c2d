-- One pace per mail API account, kept in the database so that every process sending through it
-- (two send-effect calls that overlap, a worker booted after a kill, the confirmations) shares
-- it: each request takes the next free slot, `gap` after the one before, and waits for it. A
-- per-process pace cannot see the other processes, and the API's limit is per account.
create table if not exists mail_pace (
  name text primary key,
  next_slot timestamptz not null
);

alter table mail_pace enable row level security;

do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table mail_pace from %I', api_role);
    end if;
  end loop;
end
$$;
