-- Readers who asked to be forgotten (`npm run subscribers -- forget EMAIL`): their row, mail,
-- deliveries and events' details are erased, and only this is kept, a keyed hash of the address
-- (HMAC-SHA-256 under FORGET_HASH_KEY of the address in lower case), so that an import never
-- adds them again. The address itself cannot be read from it. A new signup of the same address
-- still works: the reader's own confirmed consent is the only way back.
create table if not exists forgotten_readers (
  email_hash text primary key,
  forgotten_at timestamptz not null
);

alter table forgotten_readers enable row level security;

-- Like every newsletter table: nothing for Supabase's API roles (see 20261123000000).
do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table forgotten_readers from %I', api_role);
    end if;
  end loop;
end
$$;
