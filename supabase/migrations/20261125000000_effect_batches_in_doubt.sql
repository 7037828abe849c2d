-- An Effect's deliveries are claimed in batches that keep a name (batch_key) and, while they are
-- being sent, the raw unsubscribe token each mail carries (pending_token, dropped once the row is
-- recorded). With a mail API that keeps idempotency keys (Resend, 24 hours), a batch a crashed
-- sender left in `sending` is sent again as the same request, same key and same bytes, and the
-- API sends it once: it never becomes `unknown` while its key lives.
alter table effect_deliveries add column if not exists batch_key text;
alter table effect_deliveries add column if not exists claimed_at timestamptz;
alter table effect_deliveries add column if not exists pending_token text;

-- the batches in doubt: in `sending`, looked up by their lease and their name
create index if not exists effect_deliveries_in_doubt on effect_deliveries (lease_until, batch_key)
  where status = 'sending';
