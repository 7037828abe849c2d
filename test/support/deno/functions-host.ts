/**
 * The functions' Deno host for the contract suite (test/support/test-stack.ts, backends "Deno" and
 * "Deno behind Supabase's gateway"): the Supabase entries' own host (`serveBackend`, with the
 * worker's CPU clock and `beforeunload`) with every feature, on the test's PostgreSQL, with three
 * things a test needs and Supabase does not have: the clock moved by the test (an offset in
 * `CLOCK_FILE`), the sender's identity given as JSON (`SENDER_IDENTITY`, the content's, read by the
 * test), and each mail written to `OUTBOX_DIR` so the suite reads it as it reads the local stack's.
 * Run by `deno run` (behind the gateway, through the runtime twin), checked by `deno check` (not
 * `tsc`: it uses Deno's globals).
 */
import type { SenderIdentity } from "../../../supabase/functions/_shared/contract/published.ts";
import { readTextVariable } from "../../../supabase/functions/_shared/contract/variables.ts";
import { serveBackend } from "../../../supabase/functions/_shared/deno/serve.ts";
import { publishedSite } from "../../../supabase/functions/_shared/effect-sending/edition-source.ts";
import { consoleLogger, maskingLogger } from "../../../supabase/functions/_shared/logger.ts";
import { createOutboxMailer } from "../../../server/outbox-mailer.ts";

const env = Deno.env.toObject();
const clockFile = readTextVariable(env, "CLOCK_FILE");
const identity = JSON.parse(readTextVariable(env, "SENDER_IDENTITY")) as SenderIdentity;
const outbox = readTextVariable(env, "OUTBOX_DIR");

serveBackend(env, {
  mount: "/functions/v1",
  databaseUrl: readTextVariable(env, "DATABASE_URL"),
  site: (config) => ({ ...publishedSite(config.siteUrl), identity: async () => identity }),
  fallbackMailer: (bulk) => createOutboxMailer(outbox, bulk ? undefined : maskingLogger(consoleLogger)),
  senderName: () => `test-host:${crypto.randomUUID()}`,
  // Read on each call, so a test that moves the clock is seen at once.
  now: () => new Date(Date.now() + Number(Deno.readTextFileSync(clockFile) || "0")),
});
