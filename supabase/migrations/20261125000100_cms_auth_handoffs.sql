-- The editor's token between cms-auth's callback and the site's page that finishes the sign-in:
-- at most a minute, under the SHA-256 of a one-time code, sealed by a key made from that code
-- (which only the popup's address fragment holds). Taken once; expired rows go at the next sign-in.
create table if not exists cms_auth_handoffs (
  code_hash text primary key,
  sealed text not null,
  expires_at timestamptz not null
);

alter table cms_auth_handoffs enable row level security;

do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table cms_auth_handoffs from %I', api_role);
    end if;
  end loop;
end
$$;
