/** What the HTTP stand-ins share: a request's whole body, and a server on 127.0.0.1 at a free port. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { freePort } from "./free-port.ts";

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface LoopbackServer {
  url: string;
  /** Stops it, ending the connections still open. */
  close(): Promise<void>;
}

/** `handle` may throw: the request is answered 500 with the error, as a broken server would. */
export async function serveOnLoopback(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Promise<LoopbackServer> {
  const port = await freePort();
  const server = createServer((request, response) => {
    handle(request, response).catch((failure: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(failure));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
