/** The log both hosts write: plain lines, never a raw address (`maskEmail`, `maskAddresses` below). */
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

/** For logs: `a•••@example.com`, enough to tell mails apart, not enough to read an address. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "•••";
  return `${email[0]}•••@${email.slice(at + 1)}`;
}

// An address anywhere in a text: a provider's error (`550 5.1.1 <Jane.Doe@example.com>`), an
// exception's message. Looser than WHATWG_EMAIL on purpose: masking too much costs nothing.
const ADDRESS_IN_TEXT = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*/g;

/** The text with every address in it masked as `maskEmail` does, for anything that is logged. */
export const maskAddresses = (text: string): string => text.replace(ADDRESS_IN_TEXT, maskEmail);
