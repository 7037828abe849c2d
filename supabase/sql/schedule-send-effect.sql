-- Calls the send-effect function every 10 seconds, with the key it requires. Filled in and run by
-- `npm run secrets -- schedule --project-ref REF` (docs/deploying.md): the key is SEND_EFFECT_KEY
-- from supabase/.env.production, the file `supabase secrets set` set the function's from, and the
-- address is the project's. Run again, it changes nothing but the key and the address: each Vault
-- secret is created once and updated after, and a job of the same name is replaced. Not a
-- migration: it holds the project's address and a secret, and plain PostgreSQL (PGlite, the tests)
-- has neither pg_cron nor pg_net nor Vault.
-- https://supabase.com/docs/guides/functions/schedule-functions

create extension if not exists pg_cron;
create extension if not exists pg_net;

-- The key and the address, kept encrypted in Vault (vault.create_secret refuses a name it has).
select vault.update_secret(id, 'PASTE-THE-SEND_EFFECT_KEY-VALUE')
from vault.secrets where name = 'send_effect_key';
select vault.create_secret('PASTE-THE-SEND_EFFECT_KEY-VALUE', 'send_effect_key')
where not exists (select from vault.secrets where name = 'send_effect_key');

select vault.update_secret(id, 'https://YOUR-PROJECT-REF.supabase.co')
from vault.secrets where name = 'project_url';
select vault.create_secret('https://YOUR-PROJECT-REF.supabase.co', 'project_url')
where not exists (select from vault.secrets where name = 'project_url');

-- Every 10 seconds (pg_cron takes 1 to 59 seconds): one POST; the function decides whether the
-- day's Effect is due, sends for SEND_EFFECT_SECONDS and delivers the mail queue.
select cron.schedule(
  'send-effect',
  '10 seconds',
  $$
  select net.http_post(
    url := (select decrypted_secret from vault.decrypted_secrets where name = 'project_url')
      || '/functions/v1/send-effect',
    headers := jsonb_build_object(
      'Content-Type', 'application/json',
      'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'send_effect_key')
    ),
    body := '{}'::jsonb,
    timeout_milliseconds := 120000
  );
  $$
);
