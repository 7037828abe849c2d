// Supabase Edge Function `cms-auth`: the content editor's GitHub sign-in (../_shared/cms-auth/cms-auth.ts), the core's functions app (../_shared/app.ts) on Deno, wired by ../_shared/deno/serve-function.ts.
import { serveNewsletter } from "../_shared/deno/serve-function.ts";

serveNewsletter();
