-- Only the functions touch the newsletter's tables. Row-level security hides rows from Supabase's
-- API roles, but it does not cover TRUNCATE, and Supabase's default privileges grant every new
-- table in `public` to `anon` and `authenticated`: with the public anon key anyone could have
-- emptied the list. Take every privilege back from both roles. A table added later needs the
-- same line in its own migration (the grants test fails until it has it).
-- The roles exist only on Supabase; elsewhere (a plain PostgreSQL, PGlite) there is nothing to revoke.
do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = api_role) then
      execute format('revoke all on table subscribers, mail_jobs, rate_limits from %I', api_role);
      -- The local migration runner's record, where an operator's command created it on Supabase.
      if to_regclass('public.schema_migrations') is not null then
        execute format('revoke all on table schema_migrations from %I', api_role);
      end if;
    end if;
  end loop;
end
$$;
