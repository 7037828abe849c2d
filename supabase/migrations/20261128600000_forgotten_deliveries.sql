-- A forgotten reader's Effects stay counted (npm run subscribers -- forget EMAIL): a delivery that
-- ended (sent, failed for good, or skipped) is kept without its reader, its address and the mail
-- server's words about it; the reader's other deliveries and unsubscribe links go
-- (supabase/functions/_shared/effect-sending/delivery-store.ts, forgetDeliveries). Before, the
-- reader's deliveries went with the reader, and each Effect's sent count fell by one.
alter table effect_deliveries alter column subscriber_id drop not null;
alter table effect_deliveries alter column recipient drop not null;
