-- The 24-hour reminder counts against the caps that limit confirmation mails: one reminder per
-- mailbox while its signups may stay pending (PURGE_PENDING_AFTER_DAYS), and the reminder counts
-- in the mailbox's and the client's mails of the day it is queued. This is when the mailbox's
-- last reminder was queued.
alter table mailbox_mail_limits add column if not exists reminder_at timestamptz;
