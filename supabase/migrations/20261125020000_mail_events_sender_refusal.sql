-- A returned mail that refused us rather than the reader (RFC 3463 X.7.x: the sender's
-- reputation, SPF, DKIM, DMARC, a missing PTR, a blocklist; X.6.x, the content; an ARF
-- auth-failure report) is kept as its own kind of event: counted per edition and shown by
-- `effect status` as a warning about the sending domain, never suppressing the reader.
alter table mail_events drop constraint if exists mail_events_kind_check;
alter table mail_events add constraint mail_events_kind_check
  check (kind in ('bounce', 'soft_bounce', 'complaint', 'sender_refusal'));
