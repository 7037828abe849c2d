// Supabase Edge Function `send-confirmation`: its feature of the core, as supabase/functions/_shared/manifest.ts declares it.
import { serveFunction } from "../_shared/deno/serve.ts";

serveFunction("send-confirmation");
