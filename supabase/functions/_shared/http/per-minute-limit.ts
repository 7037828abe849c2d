/**
 * The `admit` step every function shares: at most `perMinute` calls per client address and
 * minute, counted before the body is read; over it, 429 with `Retry-After`.
 */
import { type FunctionSpec, fromStorage } from "./function-wrapper.ts";
import { errorResponse } from "./responses.ts";
import type { RateLimit } from "../subscriptions/rate-limit.ts";

export function perMinuteLimit(
  rateLimit: RateLimit,
  name: string,
  perMinute: number,
  now: () => Date,
): NonNullable<FunctionSpec["admit"]> {
  return async (_request, info, cors) => {
    const decision = await fromStorage(() =>
      rateLimit.hit(name, info.clientAddress ?? "unknown", perMinute, now()),
    );
    if (decision.allowed) return null;
    info.note?.("rate_limited");
    return errorResponse(429, "rate_limited", "Too many requests. Please try again in a minute.", cors, {
      "Retry-After": String(decision.retryAfterSeconds),
    });
  };
}
