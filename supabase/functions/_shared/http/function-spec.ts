/**
 * What a function is to the app (`app.ts`): its name, its handler, and for the signup the pages a
 * plain HTML form post is sent to. A handler gets a `Call` the app has already admitted (CORS,
 * method, per-minute limit, body within its limit, a form's Origin) and returns `Accepted` or
 * throws a `Refusal`.
 */
import type { FUNCTIONS } from "../manifest.ts";
import type { Accepted, Refusal } from "./answers.ts";

/** A function of the subscriptions feature, as the manifest declares it. */
export type FunctionName = Extract<(typeof FUNCTIONS)[number], { feature: "subscriptions" }>["name"];

export interface Call {
  request: Request;
  /** The body, read within the size limit. */
  body: Uint8Array<ArrayBuffer>;
  /** The client's address for rate limiting: the socket's, or a trusted proxy's x-forwarded-for. */
  clientAddress: string;
  /**
   * A plain HTML form post from an allowed origin (only for a spec with `formPost`): the body is
   * `application/x-www-form-urlencoded`. The handler answers as for JSON; the app redirects.
   */
  form: boolean;
}

/** Where a form post's visitor goes: a page on the origin the form was posted from, or back to the form. */
export type FormDestination = `/${string}` | "back-to-form";

export interface FormPostSpec {
  /** The form's id on its page: "back to the form" is the posting page (its Referer) at this anchor. */
  anchor: string;
  /** The page for the answer the same call as JSON got: accepted, or the refusal. */
  destination(answer: { accepted: true } | { accepted: false; refusal: Refusal }): FormDestination;
}

export interface FunctionSpec {
  name: FunctionName;
  handle(call: Call): Promise<Accepted>;
  /** Takes plain HTML form posts too, answered with a redirect (see `app.ts`). */
  formPost?: FormPostSpec;
}
