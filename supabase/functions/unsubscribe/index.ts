// Supabase Edge Function `unsubscribe`: the core's functions app (../_shared/app.ts) on Deno, wired by ../_shared/deno/serve-function.ts.
import { serveNewsletter } from "../_shared/deno/serve-function.ts";

serveNewsletter();
