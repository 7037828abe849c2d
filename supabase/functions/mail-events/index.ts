// Supabase Edge Function `mail-events`: bounces and complaints from the mail provider, the core's functions app (../_shared/app.ts) on Deno, wired by ../_shared/deno/serve-function.ts.
import { serveNewsletter } from "../_shared/deno/serve-function.ts";

serveNewsletter();
