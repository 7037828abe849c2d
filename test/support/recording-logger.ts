/** A `Logger` that keeps every line, as the local stack's log reads them: `warning: …`, `error: …`. */
import type { Logger } from "../../supabase/functions/_shared/logger.ts";

export function recordingLogger(): { log: Logger; logs: string[] } {
  const logs: string[] = [];
  const log: Logger = {
    info: (message) => logs.push(message),
    warn: (message) => logs.push(`warning: ${message}`),
    error: (message) => logs.push(`error: ${message}`),
  };
  return { log, logs };
}
