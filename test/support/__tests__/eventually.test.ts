import { eventually, EventuallyTimeout } from "../eventually.ts";
import { freePort } from "../free-port.ts";

describe("eventually", () => {
  it("resolves with the first value that passes, trying again after a throw", async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        calls += 1;
        if (calls === 1) throw new Error("not yet");
        return calls;
      },
      { what: "the third call", until: (n) => n >= 3, intervalMs: 1 },
    );
    expect(value).toBe(3);
  });

  it("fails naming what it waited for and the last value", async () => {
    const waiting = eventually(() => ({ status: 503 }), {
      what: "a 200 from the stack",
      timeoutMs: 50,
      until: (answer) => answer.status === 200,
    });
    await expect(waiting).rejects.toThrow(EventuallyTimeout);
    await expect(waiting).rejects.toThrow(/for a 200 from the stack; the last value was \{ status: 503 \}$/);
  });

  it("fails with the last error when every try threw", async () => {
    await expect(
      eventually(
        () => {
          throw new Error("connection refused");
        },
        { what: "the server", timeoutMs: 30 },
      ),
    ).rejects.toThrow(/for the server; the last try threw: connection refused$/);
  });

  it("names an error of Node's own realm by its message and its cause's", async () => {
    // Node's fetch, as a test that waits for a server calls it: nothing listens on the port.
    const port = await freePort();
    await expect(
      eventually(() => fetch(`http://127.0.0.1:${port}/`), { what: "the server", timeoutMs: 30 }),
    ).rejects.toThrow(/the last try threw: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });

  it("tries once more after a slow first try instead of failing on it", async () => {
    let calls = 0;
    const value = await eventually(
      async () => {
        calls += 1;
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 60));
        return calls === 2;
      },
      { what: "the second try", timeoutMs: 20 },
    );
    expect(value).toBe(true);
  });
});
