// Supabase Edge Function `unsubscribe`: its handler (../_shared/handlers/unsubscribe.ts) on Deno, wired by ../_shared/newsletter.ts.
import { serveFunction } from "../_shared/deno/serve-function.ts";

serveFunction("unsubscribe");
