/**
 * An HTTPS and HTTP/2 front for a local stack, so Lighthouse loads the pages the way the host
 * (Cloudflare Pages) serves them: one encrypted connection that carries every request.
 *
 * Lighthouse's simulated throttling replays the requests it saw over the protocol it saw. Over
 * HTTP/1.1 each request that runs beside another opens a new connection, and the simulation
 * charges every new connection a handshake on its slow network (two round trips of 150 ms): a page
 * with a hero picture and a display font paid for two connections the live site never opens. Over
 * HTTP/2 all requests share the document's connection, as they do on the host; the ceiling page is
 * served the same way, so both pay the same TLS handshake.
 *
 * The certificate is made for 127.0.0.1 by `openssl` at start (test/support/self-signed.ts); the browser
 * that loads these pages is told to accept it (`--ignore-certificate-errors`, loopback only).
 *
 * `dropOpenerPolicy` leaves out the pages' `Cross-Origin-Opener-Policy` (the Lighthouse runs of
 * bench/measure-pages.ts). Lighthouse opens each page from about:blank, and a page with the header
 * needs a browsing context group of its own: Chromium starts its renderer only once the response
 * has come, in the middle of the load. On 2 cores that start-up ran against the page's first
 * tasks and made Total Blocking Time follow the machine: the plain-text ceiling page 35 to 214 ms
 * (mean 129) with the header against 0 to 16 (mean 3) without, 8 interleaved runs each at 6.6x
 * (2026-11-29). Every page and its twin send the same header, so what item 9 compares, the
 * scripts' cost, is the same without it; what the header itself costs a visitor is in
 * docs/testing.md.
 */
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { selfSignedCertificate } from "../test/support/self-signed";

export interface HttpsFront {
  /** The front's origin, e.g. https://127.0.0.1:41234 */
  url: string;
  stop: () => Promise<void>;
}

/** Headers of one HTTP/1.1 connection, which HTTP/2 forbids in either direction. */
const CONNECTION_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

/** Serves `origin` (an `http://127.0.0.1:PORT` stack) over HTTPS and HTTP/2 on a free loopback port. */
export async function startHttpsFront(
  origin: string,
  { dropOpenerPolicy = false }: { dropOpenerPolicy?: boolean } = {},
): Promise<HttpsFront> {
  const target = new URL(origin);
  const server = http2.createSecureServer(
    selfSignedCertificate("/CN=127.0.0.1", ["-addext", "subjectAltName=IP:127.0.0.1"]),
    (request, response) => {
      const headers: http.OutgoingHttpHeaders = { host: target.host };
      for (const [name, value] of Object.entries(request.headers)) {
        if (!name.startsWith(":") && name !== "host" && !CONNECTION_HEADERS.has(name)) headers[name] = value;
      }
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: request.url, method: request.method, headers },
        (answer) => {
          const out: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (CONNECTION_HEADERS.has(name)) continue;
            if (dropOpenerPolicy && name === "cross-origin-opener-policy") continue;
            out[name] = value;
          }
          response.writeHead(answer.statusCode ?? 502, out);
          answer.pipe(response);
        },
      );
      upstream.on("error", (error) => {
        if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
        response.end(`The stack behind the bench's HTTPS front did not answer: ${error.message}`);
      });
      request.pipe(upstream);
    },
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Chromium is gone by then, but an idle session would keep close() waiting.
        for (const session of sessions) session.destroy();
      }),
  };
}
