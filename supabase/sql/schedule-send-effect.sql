-- Calls the send-effect function every minute: run once in the project's SQL editor (Dashboard →
-- SQL Editor) after `supabase functions deploy send-effect` and `supabase secrets set
-- SEND_EFFECT_KEY=...`. Not a migration: it holds the project's address and a secret, and plain
-- PostgreSQL (PGlite, the tests) has neither pg_cron nor pg_net nor Vault.
-- https://supabase.com/docs/guides/functions/schedule-functions

create extension if not exists pg_cron;
create extension if not exists pg_net;

-- The same key as the function's SEND_EFFECT_KEY secret, kept encrypted in Vault, and the address.
select vault.create_secret('PASTE-THE-SEND_EFFECT_KEY-VALUE', 'send_effect_key');
select vault.create_secret('https://YOUR-PROJECT-REF.supabase.co', 'project_url');

-- Each minute: one POST; the function decides whether the day's Effect is due and sends a batch.
select cron.schedule(
  'send-effect',
  '15 seconds',
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
