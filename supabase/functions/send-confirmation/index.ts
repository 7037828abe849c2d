// Supabase Edge Function `send-confirmation`: its handler (../_shared/handlers/send-confirmation.ts) on Deno, wired by ../_shared/newsletter.ts.
import { serveFunction } from "../_shared/deno/serve-function.ts";

serveFunction("send-confirmation");
