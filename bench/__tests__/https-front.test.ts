/**
 * The bench's HTTPS and HTTP/2 front (bench/https-front.ts) in front of a real loopback server:
 * the answer's status, body and headers over HTTP/2, and the opener policy left out only when
 * asked (the Lighthouse runs).
 */
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { startHttpsFront, type HttpsFront } from "../https-front";

/** One GET over HTTP/2 to the front, its certificate taken as it is (a throwaway one for 127.0.0.1). */
async function get(
  front: string,
  path: string,
): Promise<{ headers: http2.IncomingHttpHeaders; body: string }> {
  const session = http2.connect(front, { rejectUnauthorized: false });
  try {
    return await new Promise((resolve, reject) => {
      const request = session.request({ ":path": path });
      let headers: http2.IncomingHttpHeaders = {};
      let body = "";
      request.setEncoding("utf8");
      request.on("response", (received) => (headers = received));
      request.on("data", (chunk: string) => (body += chunk));
      request.on("end", () => resolve({ headers, body }));
      request.on("error", reject);
      request.end();
    });
  } finally {
    session.close();
  }
}

describe("the bench's HTTPS front", () => {
  let origin: http.Server;
  const fronts: HttpsFront[] = [];
  beforeAll(async () => {
    origin = http.createServer((_request, response) => {
      response.writeHead(200, {
        "content-type": "text/html",
        "cross-origin-opener-policy": "same-origin",
        "x-frame-options": "DENY",
        connection: "keep-alive",
      });
      response.end("<p>A page.</p>");
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await Promise.all(fronts.map((front) => front.stop()));
    await new Promise((resolve) => origin.close(resolve));
  });
  const start = async (options?: { dropOpenerPolicy?: boolean }) => {
    const front = await startHttpsFront(
      `http://127.0.0.1:${(origin.address() as AddressInfo).port}`,
      options,
    );
    fronts.push(front);
    return front;
  };

  it("passes the page and its headers on over HTTP/2, the opener policy included", async () => {
    const front = await start();
    const { headers, body } = await get(front.url, "/");
    expect(headers[":status"]).toBe(200);
    expect(body).toBe("<p>A page.</p>");
    expect(headers["cross-origin-opener-policy"]).toBe("same-origin");
    expect(headers["x-frame-options"]).toBe("DENY");
  });

  it("leaves out only the opener policy when asked", async () => {
    const front = await start({ dropOpenerPolicy: true });
    const { headers, body } = await get(front.url, "/");
    expect(body).toBe("<p>A page.</p>");
    expect(headers["cross-origin-opener-policy"]).toBeUndefined();
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["content-type"]).toBe("text/html");
  });
});
