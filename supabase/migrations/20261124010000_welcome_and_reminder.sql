-- Two more kinds of mail in the durable queue, with the confirmation's delivery promises:
-- `reminder`, one per signup that is still unconfirmed 24 hours after its mail (queued with it,
-- due then, its fresh link made when it is sent), and `welcome`, queued by the confirmation,
-- carrying the latest published Effect (recorded as that edition's delivery to the reader).
alter table mail_jobs drop constraint if exists mail_jobs_kind_check;
alter table mail_jobs add constraint mail_jobs_kind_check check (kind in ('confirmation', 'reminder', 'welcome'));

-- When the signup's one reminder was sent: a signup gets a reminder only if it has had none since
-- it signed up (a resend does not earn another; signing up again after unsubscribing does).
alter table subscribers add column if not exists reminded_at timestamptz;

-- An edition row may exist before its recipients are fixed: a welcome mail creates it to record
-- its one delivery. The day's send fixes the recipients once (every deliverable subscriber who
-- has no delivery of it yet) and sets this.
alter table effect_editions add column if not exists recipients_fixed boolean not null default true;
