// Supabase Edge Function `send-confirmation`: the shared handler on Deno (see ../_shared/handler.ts).
import { serveFunction } from "../_shared/deno/serve-function.ts";

serveFunction("send-confirmation");
