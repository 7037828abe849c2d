// supabase-js, loaded on first use, and the functions' addresses (GATSBY_SUPABASE_URL, else this page's origin).
import type { SupabaseClient } from "@supabase/supabase-js";

/**
 * The newsletter's backend calls. supabase-js is loaded on first use only, so a visitor who
 * never subscribes never downloads it (about 50 KB gzipped).
 */

// Local stack default: the page's own origin serves /functions/v1/* and accepts any key.
const LOCAL_ANON_KEY = "local-anon-key";

export const backendUrl = (): string => process.env.GATSBY_SUPABASE_URL || window.location.origin;
const anonKey = (): string => process.env.GATSBY_SUPABASE_ANON_KEY || LOCAL_ANON_KEY;

/**
 * A function's address for the pre-rendered signup form's `action`, known at build time: the
 * Supabase project's, or this site's own `/functions/v1/` on the local stack.
 */
export const functionAddress = (name: string): string =>
  `${(process.env.GATSBY_SUPABASE_URL || "").replace(/\/+$/, "")}/functions/v1/${name}`;

let client: Promise<SupabaseClient> | undefined;

function getClient(): Promise<SupabaseClient> {
  client ??= import(/* webpackChunkName: "supabase" */ "@supabase/supabase-js").then(({ createClient }) =>
    createClient(backendUrl(), anonKey(), {
      auth: { persistSession: true, storage: window.localStorage, autoRefreshToken: true },
    }),
  );
  // A failed download (offline, a deploy in between) must not stick: the next try loads again.
  client.catch(() => {
    client = undefined;
  });
  return client;
}

export type CallResult = { ok: true } | { ok: false; status?: number; error: unknown };

/**
 * Invokes a backend function with a JSON body. Any error (network, non-2xx, a failed download)
 * is a failure; `status` is the HTTP status when the function answered.
 */
export async function callFunction(name: string, body: Record<string, unknown>): Promise<CallResult> {
  try {
    const supabase = await getClient();
    const { error } = await supabase.functions.invoke(name, { body });
    if (!error) return { ok: true };
    const context: unknown = (error as { context?: unknown }).context;
    const status = context instanceof Response ? context.status : undefined;
    return { ok: false, status, error };
  } catch (error) {
    return { ok: false, error };
  }
}
