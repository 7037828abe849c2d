/**
 * The one step every function's handler runs inside: CORS (the preflight answered first), the
 * method, the body read within its size limit, and errors turned into the contract's JSON answers
 * (a database that fails is a 503 with Retry-After, anything unexpected a 500). A handler only
 * sees a request that got this far; a rejected request stores nothing and queues no mail.
 */
import type { Config } from "./config.ts";
import { corsHeaders, errorResponse, readBodyLimited } from "./http.ts";
import type { Logger } from "./logger.ts";

export const FUNCTION_NAMES = ["send-confirmation", "confirm-subscription", "unsubscribe"] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];
export const isFunctionName = (name: string): name is FunctionName =>
  (FUNCTION_NAMES as readonly string[]).includes(name);

export interface RequestInfo {
  /** The client's address for rate limiting: the socket's, or a trusted proxy's x-forwarded-for. */
  clientAddress?: string;
  /** Receives a short outcome ("pending:new", "unknown_token") for the host's request log. */
  note?: (outcome: string) => void;
}

export type FunctionHandler = (request: Request, info?: RequestInfo) => Promise<Response>;

/** What a handler gets: the request, its body (within the limit) and the CORS headers to answer with. */
export interface Call {
  request: Request;
  body: Uint8Array<ArrayBuffer>;
  cors: Headers;
  info: RequestInfo;
}

export interface FunctionSpec {
  name: FunctionName;
  /** Runs before the body is read (the rate limit): an answer here ends the call. */
  admit?(request: Request, info: RequestInfo, cors: Headers): Promise<Response | null>;
  handle(call: Call): Promise<Response>;
}

/** Thrown by `fromStorage` so the wrapper answers 503 instead of 500. */
class StorageUnavailable extends Error {
  override name = "StorageUnavailable";
}

/** Runs database work; its failure means "try again later", not a bug. */
export async function fromStorage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new StorageUnavailable(error instanceof Error ? error.message : String(error));
  }
}

const RETRY_STORAGE_SECONDS = "5";
const ALLOW = "POST, OPTIONS";

export function wrapFunction(spec: FunctionSpec, deps: { config: Config; log: Logger }): FunctionHandler {
  const { config, log } = deps;
  const { name } = spec;
  return async (request, info = {}) => {
    const cors = corsHeaders(request, config.allowedOrigins);
    if (request.method === "OPTIONS") {
      cors.set("Allow", ALLOW);
      return new Response(null, { status: 204, headers: cors });
    }
    if (request.method !== "POST") {
      return errorResponse(405, "method_not_allowed", `${name} accepts POST only.`, cors, { Allow: ALLOW });
    }
    try {
      const refused = await spec.admit?.(request, info, cors);
      if (refused) return refused;
      let body: Awaited<ReturnType<typeof readBodyLimited>>;
      try {
        body = await readBodyLimited(request, config.maxBodyBytes);
      } catch (error) {
        // The client went away or sent a broken body: nothing was read, nothing is stored.
        info.note?.("unreadable_body");
        log.warn(
          `${name}: the request body could not be read: ${error instanceof Error ? error.message : String(error)}`,
        );
        return errorResponse(400, "unreadable_body", "The request body could not be read.", cors);
      }
      if (body === "too_large") {
        return errorResponse(
          413,
          "payload_too_large",
          `The request body is larger than ${config.maxBodyBytes} bytes.`,
          cors,
        );
      }
      return await spec.handle({ request, body, cors, info });
    } catch (error) {
      if (error instanceof StorageUnavailable) {
        log.error(`${name}: storage failed: ${error.message}`);
        info.note?.("storage_unavailable");
        return errorResponse(
          503,
          "storage_unavailable",
          "The service is unavailable. Please try again later.",
          cors,
          { "Retry-After": RETRY_STORAGE_SECONDS },
        );
      }
      log.error(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return errorResponse(500, "internal_error", "Something went wrong. Please try again later.", cors);
    }
  };
}
