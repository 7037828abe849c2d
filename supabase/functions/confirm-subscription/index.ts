// Supabase Edge Function `confirm-subscription`: the shared handler on Deno (see ../_shared/handler.ts).
import { serveFunction } from "../_shared/deno/serve-function.ts";

serveFunction("confirm-subscription");
