/**
 * One log line per request, the same on both hosts: method, path (never the query: it may hold a
 * token; never a body: it holds an address), status, time, and the function's outcome
 * (`pending:new`, `form:rate_limited`, ...) that the functions app notes.
 */
import type { MiddlewareHandler } from "hono";
import type { Logger } from "../logger.ts";

export function requestLog(log: Logger): MiddlewareHandler<{ Variables: { outcome?: string } }> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const ms = (performance.now() - started).toFixed(1);
    const outcome = c.get("outcome");
    log.info(`${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms${outcome ? ` ${outcome}` : ""}`);
  };
}
