/**
 * The body within `maxBytes` (Hono's `bodyLimit`; a declared Content-Length is checked first, so an
 * oversized request costs at most `maxBytes` of memory): 413 over it, 400 if it cannot be read.
 * Every feature that reads a body mounts it on its own routes.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Logger } from "../logger.ts";
import { Refusal } from "./answers.ts";

export function readBodyWithin(maxBytes: number, log: Logger): MiddlewareHandler {
  const tooLarge = () =>
    new Refusal(413, "payload_too_large", `The request body is larger than ${maxBytes} bytes.`);
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return async (c, next) => {
    try {
      // Only the body is read in here; the handler runs after, outside this catch.
      await limit(c, async () => {
        await c.req.arrayBuffer();
      });
    } catch (error) {
      if (error instanceof Refusal) throw error;
      // The client went away or sent a broken body: nothing was read, nothing is stored.
      log.warn(
        `${c.req.path}: the request body could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw new Refusal(400, "unreadable_body", "The request body could not be read.");
    }
    await next();
  };
}

/** The answer to a known path called with a method it does not take. */
export const methodNotAllowed = (name: string, allow: string) =>
  new Refusal(405, "method_not_allowed", `${name} accepts ${allow.split(", ")[0]} only.`, {
    headers: { Allow: allow },
  });
