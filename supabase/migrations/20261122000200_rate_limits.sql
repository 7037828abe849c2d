-- Requests per client per fixed window, shared by every function instance. The bucket holds a
-- hash of the client address, never the address itself; old windows are purged by the sender.
create table if not exists rate_limits (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null default 0,
  primary key (bucket, window_start)
);

create index if not exists rate_limits_window_start on rate_limits (window_start);

alter table rate_limits enable row level security;
