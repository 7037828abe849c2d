// Supabase Edge Function `confirm-subscription`: its handler (../_shared/handlers/confirm-subscription.ts) on Deno, wired by ../_shared/newsletter.ts.
import { serveFunction } from "../_shared/deno/serve-function.ts";

serveFunction("confirm-subscription");
