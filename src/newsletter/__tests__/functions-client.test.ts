/**
 * Where the newsletter's calls go and what they carry, read at the fetch boundary. In a build,
 * Gatsby writes the GATSBY_* variables into the code; here they are read when the client is first
 * created, so each test sets them and then loads the module afresh.
 */

interface SentRequest {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

const ENV = ["GATSBY_SUPABASE_URL", "GATSBY_SUPABASE_ANON_KEY"] as const;
const savedEnv = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

function setEnv(values: Partial<Record<(typeof ENV)[number], string>>) {
  for (const name of ENV) {
    if (values[name] === undefined) delete process.env[name];
    else process.env[name] = values[name];
  }
}

/** A fresh copy of the module, as a new page load would have: no client created yet. */
async function loadClient() {
  let loaded: typeof import("../functions-client") | undefined;
  await jest.isolateModulesAsync(async () => {
    loaded = await import("../functions-client");
  });
  return loaded!;
}

const session = (accessToken: string, refreshToken: string, expiresInSeconds: number) => ({
  access_token: accessToken,
  refresh_token: refreshToken,
  token_type: "bearer",
  expires_in: expiresInSeconds,
  expires_at: Math.floor(Date.now() / 1000) + expiresInSeconds,
  user: {
    id: "00000000-0000-4000-8000-000000000000",
    aud: "authenticated",
    role: "authenticated",
    app_metadata: {},
    user_metadata: {},
    created_at: "2025-01-01T00:00:00Z",
  },
});

/** Answers the functions with 200 and a token refresh with a new session; records every request. */
function answerBackend() {
  const sent: SentRequest[] = [];
  jest.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const text = await request.text();
    sent.push({
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    });
    const body = request.url.includes("/auth/v1/token")
      ? session("refreshed-access-token", "refresh-2", 3600)
      : { status: "pending" };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  });
  return sent;
}

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
  window.localStorage.clear();
  setEnv(savedEnv);
});

describe("the newsletter's backend client", () => {
  it("calls the Supabase project and key the site was built with", async () => {
    setEnv({
      GATSBY_SUPABASE_URL: "https://project-ref.supabase.co",
      GATSBY_SUPABASE_ANON_KEY: "anon-key-from-the-build",
    });
    const sent = answerBackend();
    const { callFunction } = await loadClient();

    expect(await callFunction("send-confirmation", { email: "dad@example.com" })).toEqual({ ok: true });

    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe("https://project-ref.supabase.co/functions/v1/send-confirmation");
    expect(sent[0].method).toBe("POST");
    expect(sent[0].body).toEqual({ email: "dad@example.com" });
    expect(sent[0].headers.get("apikey")).toBe("anon-key-from-the-build");
    expect(sent[0].headers.get("authorization")).toBe("Bearer anon-key-from-the-build");
  });

  it("calls the page's own origin with the local key when none is set", async () => {
    setEnv({});
    const sent = answerBackend();
    const { callFunction, backendUrl } = await loadClient();

    expect(await callFunction("unsubscribe", { token: "tok" })).toEqual({ ok: true });

    expect(backendUrl()).toBe("http://localhost");
    expect(sent.map((request) => request.url)).toEqual(["http://localhost/functions/v1/unsubscribe"]);
    expect(sent[0].headers.get("apikey")).toBe("local-anon-key");
    expect(sent[0].headers.get("authorization")).toBe("Bearer local-anon-key");
  });

  it("keeps its session in local storage and refreshes the token on its own before it expires", async () => {
    // Its own project, so this client's session is not shared with the earlier tests' clients.
    setEnv({ GATSBY_SUPABASE_URL: "https://returning.supabase.co" });
    jest.useFakeTimers({ doNotFake: ["queueMicrotask", "nextTick", "setImmediate"] });
    // A session an earlier visit left behind, valid for two more minutes.
    window.localStorage.setItem(
      "sb-returning-auth-token",
      JSON.stringify(session("stored-access-token", "refresh-1", 120)),
    );
    const sent = answerBackend();
    const { callFunction } = await loadClient();

    expect(await callFunction("send-confirmation", { email: "dad@example.com" })).toEqual({ ok: true });
    expect(sent[0].headers.get("authorization")).toBe("Bearer stored-access-token");

    // Nothing else is called; the client refreshes the token as its expiry nears.
    await jest.advanceTimersByTimeAsync(60_000);
    const refreshes = sent.filter((request) => request.url.includes("/auth/v1/token"));
    expect(refreshes.map((request) => [request.url, request.body])).toEqual([
      [
        "https://returning.supabase.co/auth/v1/token?grant_type=refresh_token",
        { refresh_token: "refresh-1" },
      ],
    ]);
    expect(JSON.parse(window.localStorage.getItem("sb-returning-auth-token") ?? "{}")).toMatchObject({
      access_token: "refreshed-access-token",
    });
  });
});
