// Supabase Edge Function `send-effect`: the Effect of the Day, sent in batches each minute (see ../_shared/effect-sending/send-effect-handler.ts).
import { serveSendEffect } from "../_shared/deno/serve-send-effect.ts";

serveSendEffect();
