/**
 * Waiting for a condition instead of a fixed time: the one polling loop of the tests, the
 * benchmarks' helpers and test/support. A timeout says what was awaited and what was last seen.
 */
import { inspect, types } from "node:util";

export interface EventuallyOptions<T> {
  /** What is awaited, for the failure message: "the mail to a@example.com", "a 200 after the restart". */
  what: string;
  /** How long to keep trying; 10 s unless told. */
  timeoutMs?: number;
  /** The pause between two tries; 25 ms unless told. */
  intervalMs?: number;
  /** When the value is good enough; without it, any truthy value. */
  until?: (value: T) => boolean;
}

export class EventuallyTimeout extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An error's message and its cause's ("fetch failed: connect ECONNREFUSED …"); anything else inspected. */
function errorText(error: unknown): string {
  // isNativeError, not instanceof: an error from Node itself or from a package loaded outside
  // Jest's sandbox (test/support/jest/outside-sandbox.js) is another realm's Error.
  if (!types.isNativeError(error)) return inspect(error);
  return error.cause === undefined ? error.message : `${error.message}: ${errorText(error.cause)}`;
}

/** The last value or error, short enough for a failure message. */
function describeLast(last: { value: unknown } | { error: unknown } | undefined): string {
  if (last === undefined) return "it was never checked";
  if ("error" in last) return `the last try threw: ${errorText(last.error)}`;
  return `the last value was ${inspect(last.value, { depth: 3, breakLength: Infinity, maxStringLength: 500 })}`;
}

/**
 * Calls `check` until its value passes `until` (or is truthy), and resolves with that value. A
 * `check` that throws counts as not yet. After `timeoutMs` it rejects with what was awaited and
 * the last value or error. It tries at least twice, the second time after the deadline, so a
 * slow first try is not a failure by itself.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions<T>): Promise<T> {
  const { what, timeoutMs = 10_000, intervalMs = 25 } = options;
  const passes = options.until ?? ((value: T) => Boolean(value));
  const started = performance.now();
  let last: { value: T } | { error: unknown } | undefined;
  for (let tries = 0; ; tries += 1) {
    try {
      const value = await check();
      last = { value };
      if (passes(value)) return value;
    } catch (error) {
      last = { error };
    }
    const elapsed = performance.now() - started;
    if (elapsed >= timeoutMs && tries > 0)
      throw new EventuallyTimeout(`Waited ${Math.round(elapsed)} ms for ${what}; ${describeLast(last)}`);
    await sleep(Math.max(0, Math.min(intervalMs, timeoutMs - elapsed)));
  }
}
