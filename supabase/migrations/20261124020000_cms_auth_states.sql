-- The content editor's GitHub sign-in (the cms-auth function): the id of each sign-in's `state`,
-- claimed when GitHub sends the editor back, so a callback address used once cannot be used again.
-- A row is kept until its state has expired (ten minutes); the next claim deletes it.
create table if not exists cms_auth_states (
  id text primary key,
  expires_at timestamptz not null
);

alter table cms_auth_states enable row level security;

do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table cms_auth_states from %I', api_role);
    end if;
  end loop;
end
$$;
