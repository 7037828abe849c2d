/**
 * The one step every function's handler runs inside: CORS (the preflight answered first), the
 * method, the body read within its size limit, and errors turned into the contract's JSON answers
 * (a database that fails is a 503 with Retry-After, anything unexpected a 500). A handler only
 * sees a request that got this far; a rejected request stores nothing and queues no mail.
 *
 * A function with a `formPost` part also takes a plain HTML form post (the signup card without
 * JavaScript): only from an allowed origin (else 403 before anything is counted or read), handled
 * exactly as the JSON call, and its answer, the wrapper's own refusals included, turned into a
 * `303 See Other` to a page on the origin the form was posted from.
 */
import type { Config } from "../config.ts";
import {
  corsHeaders,
  type ErrorCode,
  errorResponse,
  FORM_MEDIA_TYPE,
  mediaType,
  readBodyLimited,
  seeOther,
  textResponse,
} from "./responses.ts";
import type { Logger } from "../logger.ts";

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
  /**
   * A plain HTML form post from an allowed origin (only for a spec with `formPost`): the body is
   * `application/x-www-form-urlencoded`. The handler answers as for JSON; the wrapper redirects.
   */
  form: boolean;
}

/** Where a form post's visitor goes: a page on the origin the form was posted from, or back to the form. */
export type FormDestination = `/${string}` | "back-to-form";

export interface FormPostSpec {
  /** The form's id on its page: "back to the form" is the posting page (its Referer) at this anchor. */
  anchor: string;
  /**
   * The page for the answer the same call as JSON got: its status and the outcome the handler or
   * the wrapper noted for the request log (`pending:new`, `invalid_email:missing`, ...).
   */
  destination(answer: { status: number; outcome: string | undefined }): FormDestination;
}

export interface FunctionSpec {
  name: FunctionName;
  /** Runs before the body is read (the rate limit): an answer here ends the call. */
  admit?(request: Request, info: RequestInfo, cors: Headers): Promise<Response | null>;
  handle(call: Call): Promise<Response>;
  /** Takes plain HTML form posts too, answered with a redirect (see the top of this file). */
  formPost?: FormPostSpec;
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
const FORBIDDEN_ORIGIN: ErrorCode = "forbidden_origin";

/** The Location for a form post's answer; `origin` is an allowed one, so the redirect stays on the site. */
function formLocation(
  destination: FormDestination,
  origin: string,
  request: Request,
  anchor: string,
): string {
  if (destination !== "back-to-form") return `${origin}${destination}`;
  let page = "/";
  try {
    const referer = new URL(request.headers.get("referer") ?? "");
    if (referer.origin === origin) page = referer.pathname;
  } catch {
    // No Referer, or not a URL: the site's front page has the card too.
  }
  return `${origin}${page}#${anchor}`;
}

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
    const formPost = mediaType(request) === FORM_MEDIA_TYPE ? spec.formPost : undefined;
    if (!formPost) return answer(request, info, cors, false);

    // A form needs no CORS to post, so the Origin check is the only thing keeping other sites'
    // forms (or a script anywhere) from making this function mail people.
    const origin = request.headers.get("origin");
    if (origin === null || !config.allowedOrigins.includes(origin)) {
      info.note?.(`form:${FORBIDDEN_ORIGIN}`);
      return textResponse(
        403,
        `Forbidden: this sign-up form was not sent from ${config.siteUrl}, so nothing was stored and no mail was sent. Please sign up on ${config.siteUrl}.\n`,
        cors,
      );
    }
    let outcome: string | undefined;
    const response = await answer(request, { ...info, note: (noted) => (outcome = noted) }, cors, true);
    info.note?.(`form:${outcome ?? response.status}`);
    await response.body?.cancel();
    const destination = formPost.destination({ status: response.status, outcome });
    return seeOther(formLocation(destination, origin, request, formPost.anchor), cors);
  };

  /** The contract's answer to a POST: admitted, its body read, handled, errors turned into answers. */
  async function answer(
    request: Request,
    info: RequestInfo,
    cors: Headers,
    form: boolean,
  ): Promise<Response> {
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
        info.note?.("payload_too_large");
        return errorResponse(
          413,
          "payload_too_large",
          `The request body is larger than ${config.maxBodyBytes} bytes.`,
          cors,
        );
      }
      return await spec.handle({ request, body, cors, info, form });
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
      info.note?.("internal_error");
      return errorResponse(500, "internal_error", "Something went wrong. Please try again later.", cors);
    }
  }
}
