import { type Logger, maskingLogger } from "../logger.ts";

describe("the functions' log", () => {
  it("masks every address in every line, at every level, whoever wrote it", () => {
    const lines: string[] = [];
    const inner: Logger = {
      info: (message) => lines.push(`info ${message}`),
      warn: (message) => lines.push(`warn ${message}`),
      error: (message) => lines.push(`error ${message}`),
    };
    const log = maskingLogger(inner);
    log.info("mail to a•••@example.com sent");
    log.warn("mail failed: 550 5.1.1 <Jane.Doe@example.com>: user unknown");
    log.error("storage failed: duplicate key (lower(email))=(bob@example.org)");
    expect(lines).toEqual([
      "info mail to a•••@example.com sent",
      "warn mail failed: 550 5.1.1 <J•••@example.com>: user unknown",
      "error storage failed: duplicate key (lower(email))=(b•••@example.org)",
    ]);
  });
});
