/**
 * Answers the newsletter functions at the fetch boundary, as Supabase's hosted runtime would.
 * The real supabase-js client builds and sends each request; this records it and replies.
 */
export interface FunctionCall {
  name: string;
  url: string;
  method: string;
  body: Record<string, unknown>;
}

export type Reply = { status: number; body?: unknown };

export function answerFunctions(reply: (call: FunctionCall) => Reply | Promise<Reply>) {
  const calls: FunctionCall[] = [];
  const spy = jest.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const match = /\/functions\/v1\/([^/?]+)/.exec(request.url);
    if (!match) throw new TypeError(`Unexpected request to ${request.url}`);
    const call: FunctionCall = {
      name: match[1],
      url: request.url,
      method: request.method,
      body: (await request.json()) as Record<string, unknown>,
    };
    calls.push(call);
    const { status, body } = await reply(call);
    return new Response(JSON.stringify(body ?? {}), {
      status,
      headers: { "content-type": "application/json" },
    });
  });
  return { calls, restore: () => spy.mockRestore() };
}

/** A reply the test releases when it wants, to look at the page while the request is pending. */
export function heldReply() {
  let release: (reply: Reply) => void = () => undefined;
  const reply = new Promise<Reply>((resolve) => {
    release = resolve;
  });
  return { reply: () => reply, release };
}
