/**
 * The stand-in for Supabase's gateway keeps the platform's rules, so a test run through it fails
 * where the platform would: HTML from a GET arrives as plain text; a worker's CPU counts across
 * its requests, past 1 s it retires (the next request boots a new worker, nothing fails) and past
 * 2 s or 256 MB it is stopped with 546; `verify_jwt` from config.toml turns away a call without a
 * valid token. The workers here are small Node servers that do each thing on purpose.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../../test/support/free-port.ts";
import { startProcess } from "../../../test/support/process.ts";
import {
  type GatewayWorker,
  signJwt,
  type SupabaseGateway,
  startSupabaseGateway,
  verifyJwtSettings,
} from "../../../test/support/supabase-gateway.ts";

const WORKER = `
const http = require("node:http");
let hold = [];
http.createServer((request, response) => {
  const path = request.url.split("?")[0];
  if (path.endsWith("/page")) {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    return response.end("<!doctype html><p>Signed in</p>");
  }
  if (path.endsWith("/burn")) {
    // ?ms= of CPU, not of the clock: on a busy machine wall time says little about CPU.
    const wanted = Number(new URL(request.url, "http://x").searchParams.get("ms") ?? 4000);
    const start = process.cpuUsage();
    const cpuMs = () => {
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    const giveUp = Date.now() + 25_000;
    while (cpuMs() < wanted && Date.now() < giveUp) Math.sqrt(Math.random());
    response.writeHead(200, { "Content-Type": "application/json" });
    return response.end(JSON.stringify({ pid: process.pid }));
  }
  if (path.endsWith("/eat")) {
    for (let i = 0; i < 40; i++) hold.push(Buffer.alloc(10 * 1024 * 1024, 1));
    return setTimeout(() => response.end("ate"), 1000);
  }
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end(JSON.stringify({ method: request.method, path, pid: process.pid }));
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("Listening on " + process.env.PORT));
`;

const TOML = `project_id = "x"

[functions.open]
verify_jwt = false

[functions.guarded]

[functions.explicit]
verify_jwt = true
`;
const SECRET = "super-secret-jwt-token-with-at-least-32-characters";

describe("the stand-in for Supabase's gateway", () => {
  let dir: string;
  let gateway: SupabaseGateway;
  let boots = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "gateway-"));
    writeFileSync(path.join(dir, "config.toml"), TOML);
    gateway = await startSupabaseGateway({
      configToml: path.join(dir, "config.toml"),
      jwtSecret: SECRET,
      startWorker: async (): Promise<GatewayWorker> => {
        const port = await freePort();
        boots++;
        const worker = await startProcess(process.execPath, ["-e", WORKER], {
          cwd: dir,
          env: { ...process.env, PORT: String(port) },
          ready: /Listening on/,
        });
        return {
          url: `http://127.0.0.1:${port}`,
          pid: worker.child.pid as number,
          stop: () => worker.stop(),
        };
      },
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (name: string, rest = "", headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/functions/v1/${name}${rest}`, { headers });

  it("reads verify_jwt per function, on unless turned off", () => {
    expect(Object.fromEntries(verifyJwtSettings(TOML))).toEqual({
      open: false,
      guarded: true,
      explicit: true,
    });
  });

  it("serves a function's HTML as plain text, as the platform does without a custom domain", async () => {
    const answer = await get("open", "/page");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await answer.text()).toContain("<!doctype html>");
  });

  it("turns away a call without a valid JWT where verify_jwt is on, and lets a signed one through", async () => {
    expect((await get("guarded")).status).toBe(401);
    expect((await get("guarded", "", { authorization: "Bearer not.a.token" })).status).toBe(401);
    const token = signJwt({ role: "anon", exp: Math.floor(Date.now() / 1000) + 60 }, SECRET);
    const answer = await get("guarded", "", { authorization: `Bearer ${token}` });
    expect(answer.status).toBe(200);
    expect((await get("open")).status).toBe(200);
    expect((await get("missing")).status).toBe(404);
  });

  it("counts a worker's CPU across its requests: past 1 s it takes no new request, and nothing fails", async () => {
    const pids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await get("open", "/burn?ms=400");
      expect(answer.status).toBe(200);
      pids.push(((await answer.json()) as { pid: number }).pid);
    }
    // 400 ms each: the third request takes the worker past 1 s, so the fourth goes to a new one.
    expect(pids[1]).toBe(pids[0]);
    expect(pids[2]).toBe(pids[0]);
    expect(pids[3]).not.toBe(pids[0]);
    expect(gateway.retired.at(-1)).toMatchObject({ name: "open", reason: "cpu" });
    expect(gateway.stopped).toEqual([]);
  }, 30_000);

  it("stops a worker past 2 s of CPU with 546, and boots a new one for the next request", async () => {
    const first = (await (await get("open")).json()) as { pid: number };
    const answer = await get("open", "/burn");
    expect(answer.status).toBe(546);
    expect(await answer.json()).toMatchObject({ code: "WORKER_LIMIT" });
    expect(gateway.stopped.at(-1)).toMatchObject({ name: "open", reason: "cpu" });
    const bootsBefore = boots;
    const next = (await (await get("open")).json()) as { pid: number };
    expect(next.pid).not.toBe(first.pid);
    expect(boots).toBe(bootsBefore + 1);
  }, 30_000);

  it("stops a worker past 256 MB", async () => {
    const answer = await get("open", "/eat");
    expect(answer.status).toBe(546);
    expect(gateway.stopped.at(-1)).toMatchObject({ name: "open", reason: "memory" });
  }, 30_000);
});
