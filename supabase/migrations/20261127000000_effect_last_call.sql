-- What the last send-effect call of an edition did, for `effect status`: when it ran, how many
-- mails it sent, the CPU it counted and with which clock (the runtime's own, or an estimate where
-- the runtime has none, as on Supabase), and why it stopped before the list was done.
alter table effect_editions add column if not exists last_call jsonb;
