/**
 * The log of the local stack and of the operator's commands: one line per message on stdout
 * (warnings and errors on stderr), each with the time. A module of its own so that a command that
 * logs does not load the stack's server.
 */
import type { Logger } from "../supabase/functions/_shared/hosts.ts";

const timestamp = () => new Date().toISOString().slice(11, 19);

export const stdoutLogger: Logger = {
  info: (message) => console.log(`${timestamp()} ${message}`),
  warn: (message) => console.warn(`${timestamp()} warning: ${message}`),
  error: (message) => console.error(`${timestamp()} error: ${message}`),
};
