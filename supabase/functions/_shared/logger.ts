import { maskAddresses } from "./subscriptions/email-address.ts";

/** The functions' log: plain lines, never a raw address (see `maskEmail`). */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};

/**
 * The log every host writes through: any address in a line is masked, whoever wrote it. Callers
 * mask the addresses they name (`maskEmail`); this catches the ones they pass on unread, such as
 * an SMTP server's `550 5.1.1 <jane.doe@example.com>` or a driver's error message.
 */
export function maskingLogger(log: Logger): Logger {
  return {
    info: (message) => log.info(maskAddresses(message)),
    warn: (message) => log.warn(maskAddresses(message)),
    error: (message) => log.error(maskAddresses(message)),
  };
}
