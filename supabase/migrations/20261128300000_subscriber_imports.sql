-- A reader brought from another provider (`npm run subscribers -- import FILE --from PROVIDER`):
-- the consent columns say `import:PROVIDER` and the original opt-in time the export gave; these
-- two keep the rest of the evidence, the base name of the file it came in and when it was
-- imported. Set by the import that made the row (or confirmed a signup waiting for its own
-- confirmation), never by a signup. No IP address an export carries is kept anywhere.
alter table subscribers
  add column if not exists imported_from text check (char_length(imported_from) between 1 and 255),
  add column if not exists imported_at timestamptz;
