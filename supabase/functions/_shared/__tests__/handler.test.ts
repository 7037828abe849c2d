/** The handler as `(Request) => Response`, for what HTTP tests cannot easily provoke. */
import { parseConfig } from "../config.ts";
import { createFunctionHandler } from "../handler.ts";
import type { Logger } from "../logger.ts";
import type { SubscriberStore } from "../subscriber-store.ts";

describe("a request whose body breaks off while it is read", () => {
  it("answers 400 with the JSON error body and CORS headers, and logs why", async () => {
    const warnings: string[] = [];
    const log: Logger = {
      info: () => undefined,
      warn: (message) => warnings.push(message),
      error: () => undefined,
    };
    // Only the rate limit is reached: nothing is stored for a body that was not read.
    const store = { hit: () => Promise.resolve(1) } as unknown as SubscriberStore;
    const handler = createFunctionHandler("confirm-subscription", { store, config: parseConfig({}), log });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"token":'));
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request("http://localhost:8000/functions/v1/confirm-subscription", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:8000" },
      body,
      duplex: "half",
    } as RequestInit);

    const response = await handler(request);
    expect(response.status).toBe(400);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:8000");
    expect(await response.json()).toEqual({
      error: { code: "unreadable_body", message: "The request body could not be read." },
    });
    expect(warnings.join("\n")).toContain("connection reset");
  });
});
