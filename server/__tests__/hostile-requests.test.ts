/**
 * Requests an attacker or a broken client sends the local stack, each a probe from a security
 * read: paths that smuggle `..` past the static rules, a request target that is not a URL, and
 * clients that hold connections open by sending slowly or by opening many.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../../test/support/eventually.ts";
import { MAX_CONNECTIONS, type RunningServer, startServer } from "../start-server.ts";
import { preparedDataDir } from "../../test/support/test-stack.ts";

interface RawAnswer {
  status: number;
  head: string;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

/** Sends `chunks` one by one, `gapMs` apart, and reads until the server closes the connection. */
function rawExchange(port: number, chunks: string[], gapMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let timer: NodeJS.Timeout | undefined;
    socket.on("data", (data: Buffer) => (received += data.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0),
        head: received.split("\r\n\r\n")[0],
        closedAfterMs: performance.now() - started,
      });
    });
    socket.on("connect", () => {
      let next = 0;
      const send = () => {
        if (socket.destroyed || next >= chunks.length) return;
        socket.write(chunks[next++]);
        timer = setTimeout(send, gapMs);
      };
      send();
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for 40 s; got: ${received.slice(0, 200)}`));
    }, 40_000).unref();
  });
}

describe("hostile requests to the local stack", () => {
  let dir: string;
  let dataDir: string;
  let server: RunningServer;
  const logs: string[] = [];

  beforeAll(async () => {
    dataDir = await preparedDataDir();
    dir = mkdtempSync(path.join(tmpdir(), "hostile-site-"));
    const files: Record<string, string> = {
      "index.html": "<!doctype html><p>Home</p>",
      "404.html": "<!doctype html><p>Oops! Page not found</p>",
      _headers: "/*\n  X-Secret-Setting: yes\n",
      "static/hero-1a2b3c.png": "not really a png",
    };
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), content);
    }
    const record = (message: string) => logs.push(message);
    server = await startServer({
      env: { PORT: "0", DATA_DIR: dataDir, PUBLIC_DIR: dir },
      log: { info: record, warn: record, error: record },
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (target: string) =>
    rawExchange(server.port, [`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`]);

  it("never serves the host's _headers file, however the path is spelt", async () => {
    for (const target of ["/_headers", "/x/..%2f_headers", "/x/%2e%2e/_headers", "/static/..%2F_headers"]) {
      const answer = await get(target);
      expect(`${target} ${answer.status}`).toBe(`${target} 404`);
    }
  });

  it("gives a year's immutable cache only to what really is under /static/", async () => {
    expect((await get("/static/hero-1a2b3c.png")).head).toMatch(
      /cache-control: public, max-age=31536000, immutable/i,
    );
    for (const target of [
      "/static/..%2findex.html",
      "/static/%2e%2e/index.html",
      "/static/..%5cindex.html",
    ]) {
      const answer = await get(target);
      expect(answer.head).not.toMatch(/immutable/i);
    }
  });

  it("answers a request target that is not a URL with 400 and one log line, without a stack trace", async () => {
    const before = logs.length;
    const answer = await get("//[");
    expect(answer.status).toBe(400);
    const written = logs.slice(before);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/\b400\b/);
    expect(written[0]).not.toMatch(/\n\s+at /);
  });

  it("cuts off a client that sends its body a byte at a time", async () => {
    const head =
      "POST /functions/v1/send-confirmation HTTP/1.1\r\nHost: localhost\r\n" +
      "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n";
    const answer = await rawExchange(server.port, [head, ...Array(60).fill(" ")], 1_000);
    // A 4 KB JSON body takes well under a second even on a slow phone; the stack allows 10 s.
    expect(answer.closedAfterMs).toBeLessThan(15_000);
    expect([0, 408]).toContain(answer.status);
  });

  it("cuts off a client that sends its headers a byte at a time", async () => {
    const request = "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a".repeat(60);
    const answer = await rawExchange(server.port, request.split(""), 500);
    expect(answer.closedAfterMs).toBeLessThan(15_000);
  });

  it(`holds at most ${MAX_CONNECTIONS} connections at once`, async () => {
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) {
        const socket = connect(server.port, "127.0.0.1");
        socket.on("error", () => undefined);
        sockets.push(socket);
      }
      await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once("connect", resolve))));
      const refused = await get("/");
      expect(refused.status).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    // Room again once the server has seen them go.
    await eventually(async () => (await get("/")).status, {
      what: "a 200 once the held connections are gone",
      timeoutMs: 5_000,
      until: (status) => status === 200,
    });
  });
});
