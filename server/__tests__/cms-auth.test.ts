/**
 * cms-auth, the content editor's GitHub sign-in, over HTTP as the browser's popup meets it, against
 * a GitHub stand-in on loopback: on the local stack (PGlite and PostgreSQL), on the functions' Deno
 * host, and on it behind the stand-in for Supabase's gateway, which serves a function's HTML as
 * plain text. So no answer is a page: the callback redirects to the site's page with a one-time
 * code (exchanged once, by a POST, for the token) or a reason; a state that is wrong, replayed,
 * expired or from another browser, a cancel, GitHub's refusal and its silence never give a token.
 */
import { forEachBackend } from "../../test/support/backends.ts";
import {
  type GithubStandIn,
  STAND_IN_CLIENT_ID,
  STAND_IN_CLIENT_SECRET,
  startGithubStandIn,
} from "../../test/support/github-stand-in.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { COOKIE } from "../../supabase/functions/_shared/cms-auth/cms-auth.ts";
import { CMS_SIGNED_IN_PATH } from "../../supabase/functions/_shared/contract/cms-sign-in.ts";
import { checkState, issueState, stateKey } from "../../supabase/functions/_shared/cms-auth/oauth-state.ts";

/** A browser's popup, reduced to what matters: one cookie jar for the function's host, no redirects followed. */
class Popup {
  cookie = "";
  constructor(private readonly stack: TestStack) {}

  async open(path: string): Promise<Response> {
    const response = await fetch(path.startsWith("http") ? path : `${this.stack.url}${path}`, {
      redirect: "manual",
      headers: this.cookie ? { cookie: this.cookie } : {},
    });
    // One jar: each cookie set replaces its namesake, an empty one removes it.
    const jar = new Map(
      this.cookie
        .split("; ")
        .filter(Boolean)
        .map((pair) => [pair.split("=")[0], pair] as const),
    );
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(";");
      const name = pair.split("=")[0];
      if (pair.endsWith("=")) jar.delete(name);
      else jar.set(name, pair);
    }
    this.cookie = [...jar.values()].join("; ");
    return response;
  }

  /** Login: the function's redirect to GitHub, GitHub's page, the editor's click, and back. */
  async signIn(github: GithubStandIn, choice: "Authorize" | "Cancel" = "Authorize") {
    const started = await this.open("/functions/v1/cms-auth?provider=github&site_id=example&scope=repo");
    const authorize = started.headers.get("location") ?? "";
    const page = await (await fetch(authorize)).text();
    const link = new RegExp(`<a href="([^"]+)">${choice}</a>`).exec(page)?.[1].replace(/&amp;/g, "&");
    if (!link) throw new Error(`GitHub's page has no ${choice} link: ${page}`);
    const callback = link.replace(/^https?:\/\/[^/]+/, "");
    const cookie = this.cookie;
    return { started, authorize: new URL(authorize), callback, cookie, answer: await this.open(callback) };
  }
}

/** Where an answer sends the popup: the site's page, and what its fragment says. */
function landing(answer: Response, stack: TestStack): { code?: string; error?: string } {
  expect(answer.status).toBe(303);
  const location = new URL(answer.headers.get("location") ?? "");
  expect(`${location.origin}${location.pathname}`).toBe(`${stack.origin}${CMS_SIGNED_IN_PATH}`);
  // Nothing the servers on the way could log: all of it is in the fragment.
  expect(location.search).toBe("");
  return Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
}

/** The site's page exchanging its code, as the browser sends it: JSON, from the site's origin. */
const exchange = (stack: TestStack, code: string) =>
  fetch(`${stack.url}/functions/v1/cms-auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stack.origin },
    body: JSON.stringify({ code }),
  });

forEachBackend("cms-auth on %s", { deno: true, gateway: true }, (backend, serverUrl) => {
  let github: GithubStandIn;
  let stack: TestStack;

  beforeAll(async () => {
    github = await startGithubStandIn();
    stack = await startTestStack(
      backend,
      {
        CMS_GITHUB_CLIENT_ID: STAND_IN_CLIENT_ID,
        CMS_GITHUB_CLIENT_SECRET: STAND_IN_CLIENT_SECRET,
        CMS_GITHUB_URL: github.url,
      },
      serverUrl,
    );
  });
  afterAll(async () => {
    await stack?.close();
    await github?.stop();
  });

  it("sends the editor to GitHub with the OAuth App, a signed state and a cookie only this browser holds", async () => {
    const popup = new Popup(stack);
    const { started, authorize } = await popup.signIn(github);
    expect(started.status).toBe(302);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
    expect(authorize.searchParams.get("client_id")).toBe(STAND_IN_CLIENT_ID);
    expect(authorize.searchParams.get("scope")).toBe("repo");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${stack.origin}/functions/v1/cms-auth/callback`);
    expect(authorize.searchParams.get("state")).toMatch(/^[\w-]{22}\.\d+\.[\w-]{43}$/);
    const cookie = started.headers.getSetCookie()[0] ?? "";
    expect(cookie).toMatch(
      new RegExp(`^${COOKIE}=[\\w-]{22}; Path=/functions/v1/cms-auth; Max-Age=600; HttpOnly; SameSite=Lax`),
    );
    // The state is not the cookie: seeing the address GitHub was sent to is not enough to finish.
    expect(authorize.searchParams.get("state")).not.toContain(cookie.split(";")[0].split("=")[1]);
  });

  it("ends on the site's page with a one-time code, which gives the token GitHub issued once, to the site's origin", async () => {
    const popup = new Popup(stack);
    const signedIn = await popup.signIn(github);
    const { answer } = signedIn;
    const { code } = landing(answer, stack);
    expect(code).toMatch(/^[\w-]{43}$/);
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    // No page, so nothing the platform could turn into plain text.
    expect(answer.headers.get("content-type") ?? "").not.toMatch(/html/);
    const token = github.tokens.at(-1) as string;
    expect(answer.headers.get("location")).not.toContain(token);

    const handed = await exchange(stack, code as string);
    expect(handed.status).toBe(200);
    expect(await handed.json()).toEqual({ token, provider: "github" });
    expect(handed.headers.get("access-control-allow-origin")).toBe(stack.origin);
    expect(handed.headers.get("cache-control")).toBe("no-store");
    // Once.
    const again = await exchange(stack, code as string);
    expect(again.status).toBe(410);
    expect(await again.text()).not.toContain(token);
    // Another site's page gets no CORS to read it with.
    const foreign = await fetch(`${stack.url}/functions/v1/cms-auth/token`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();

    // The same callback again, cookie and all: the state was used.
    const replay = new Popup(stack);
    replay.cookie = signedIn.cookie;
    expect(landing(await replay.open(signedIn.callback), stack)).toEqual({ error: "replayed" });
    // The redirect cleared the cookie: the popup itself cannot finish again either.
    expect(popup.cookie).toBe("");
  });

  it("refuses a code it never made, and a code that waited over a minute", async () => {
    expect((await exchange(stack, "x".repeat(43))).status).toBe(410);
    expect((await exchange(stack, "not a code")).status).toBe(400);
    const { code } = landing((await new Popup(stack).signIn(github)).answer, stack);
    stack.advance(61);
    const late = await exchange(stack, code as string);
    expect(late.status).toBe(410);
    expect((await late.json()).error.code).toBe("code_used");
  });

  it("refuses a callback from another browser, a forged state and an expired one, without asking GitHub", async () => {
    const tokensBefore = github.tokens.length;
    // Another browser: the address, without the cookie.
    const first = new Popup(stack);
    const started = await first.open("/functions/v1/cms-auth?provider=github&scope=repo");
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
    const stranger = await new Popup(stack).open(`/functions/v1/cms-auth/callback?code=abc&state=${state}`);
    expect(landing(stranger, stack)).toEqual({ error: "no_cookie" });

    // Forged: the signature of another state.
    const [id, expiry] = state.split(".");
    const forged = await first.open(
      `/functions/v1/cms-auth/callback?code=abc&state=${id}.${Number(expiry) + 3600}.${state.split(".")[2]}`,
    );
    expect(landing(forged, stack)).toEqual({ error: "forged" });

    // Expired: eleven minutes later.
    const late = new Popup(stack);
    const lateStart = await late.open("/functions/v1/cms-auth?provider=github");
    const lateState = new URL(lateStart.headers.get("location") ?? "").searchParams.get("state");
    stack.advance(11 * 60);
    const expired = await late.open(`/functions/v1/cms-auth/callback?code=abc&state=${lateState}`);
    expect(landing(expired, stack)).toEqual({ error: "expired" });

    const garbage = await late.open("/functions/v1/cms-auth/callback?code=abc&state=%3Cscript%3E");
    expect(landing(garbage, stack)).toEqual({ error: "malformed" });
    // A signature of a length no base64 has.
    const unreadable = await late.open(
      `/functions/v1/cms-auth/callback?code=abc&state=${id}.${expiry}.abcde`,
    );
    expect(landing(unreadable, stack)).toEqual({ error: "malformed" });
    expect(github.tokens.length).toBe(tokensBefore);
  });

  it("answers an origin cookie it did not set with 400 and the contract's error body, not a 500", async () => {
    const popup = new Popup(stack);
    const started = await popup.open("/functions/v1/cms-auth?provider=github");
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state");
    const tampered = popup.cookie.replace(/cms_auth_origin=[^;]*/, "cms_auth_origin=%E0%A4%A");
    expect(tampered).not.toBe(popup.cookie);
    const answer = await fetch(`${stack.url}/functions/v1/cms-auth/callback?code=abc&state=${state}`, {
      redirect: "manual",
      headers: { cookie: tampered },
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: { code: "invalid_cookie", message: expect.any(String) },
    });
  });

  it("says so when the editor cancels on GitHub or GitHub refuses the code, with no token", async () => {
    const cancelled = await new Popup(stack).signIn(github, "Cancel");
    expect(landing(cancelled.answer, stack)).toEqual({ error: "cancelled" });

    const popup = new Popup(stack);
    const started = await popup.open("/functions/v1/cms-auth?provider=github");
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state");
    const refused = await popup.open(`/functions/v1/cms-auth/callback?code=not-a-code&state=${state}`);
    expect(landing(refused, stack)).toEqual({ error: "github_refused" });
  });

  it("refuses another provider and any method but GET", async () => {
    const other = await new Popup(stack).open("/functions/v1/cms-auth?provider=gitlab");
    expect(landing(other, stack)).toEqual({ error: "unknown_provider" });
    const posted = await fetch(`${stack.url}/functions/v1/cms-auth`, { method: "POST" });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET");
  });
});

describe("cms-auth for a site on two origins", () => {
  it("ends the sign-in on the allowed origin the editor came from, and on SITE_URL's for any other", async () => {
    const github = await startGithubStandIn();
    const stack = await startTestStack("PGlite", {
      CMS_GITHUB_CLIENT_ID: STAND_IN_CLIENT_ID,
      CMS_GITHUB_CLIENT_SECRET: STAND_IN_CLIENT_SECRET,
      CMS_GITHUB_URL: github.url,
      ALLOWED_ORIGINS: "https://www.site.example,https://site.example",
      SITE_URL: "https://www.site.example",
    });
    try {
      const through = async (origin: string) => {
        const popup = new Popup(stack);
        const started = await popup.open(
          `/functions/v1/cms-auth?provider=github&scope=repo&origin=${encodeURIComponent(origin)}`,
        );
        const page = await (await fetch(started.headers.get("location") ?? "")).text();
        const link = (/<a href="([^"]+)">Authorize<\/a>/.exec(page)?.[1] ?? "").replace(/&amp;/g, "&");
        const answer = await popup.open(link.replace(/^https?:\/\/[^/]+/, ""));
        return new URL(answer.headers.get("location") ?? "");
      };
      expect((await through("https://site.example")).origin).toBe("https://site.example");
      expect((await through("https://evil.example")).origin).toBe("https://www.site.example");
    } finally {
      await stack.close();
      await github.stop();
    }
  });
});

describe("cms-auth when GitHub is down or the app is not set up", () => {
  it("ends on the site's page saying GitHub could not be reached, or that sign-in is not set up", async () => {
    const github = await startGithubStandIn();
    const down = await startTestStack("PGlite", {
      CMS_GITHUB_CLIENT_ID: STAND_IN_CLIENT_ID,
      CMS_GITHUB_CLIENT_SECRET: STAND_IN_CLIENT_SECRET,
      CMS_GITHUB_URL: github.url,
    });
    const unset = await startTestStack("PGlite");
    try {
      const popup = new Popup(down);
      const started = await popup.open("/functions/v1/cms-auth?provider=github");
      const authorize = started.headers.get("location") ?? "";
      const page = await (await fetch(authorize)).text();
      const callback = (/<a href="([^"]+)">Authorize<\/a>/.exec(page)?.[1] ?? "").replace(/&amp;/g, "&");
      await github.stop();
      const answer = await popup.open(callback.replace(/^https?:\/\/[^/]+/, ""));
      expect(landing(answer, down)).toEqual({ error: "github_unreachable" });

      const notSet = await fetch(`${unset.url}/functions/v1/cms-auth?provider=github`, {
        redirect: "manual",
      });
      expect(landing(notSet, unset)).toEqual({ error: "not_configured" });
    } finally {
      await down.close();
      await unset.close();
    }
  });
});

describe("the state", () => {
  it("is accepted with its own cookie before it expires, and not otherwise", async () => {
    const key = await stateKey("a-client-secret-of-forty-characters-000");
    const otherKey = await stateKey("another-client-secret-of-forty-chars-00");
    const at = new Date("2026-11-24T10:00:00Z");
    const issued = await issueState(key, at);
    expect(await checkState(key, issued.state, issued.browserNonce, at)).toEqual({
      ok: true,
      id: issued.state.split(".")[0],
      expiresAt: issued.expiresAt,
    });
    const reasons = [
      await checkState(key, issued.state, undefined, at),
      await checkState(key, issued.state, `${issued.browserNonce}x`, at),
      await checkState(otherKey, issued.state, issued.browserNonce, at),
      await checkState(key, issued.state, issued.browserNonce, new Date(at.getTime() + 600_000)),
      await checkState(key, "not.a.state!", issued.browserNonce, at),
      await checkState(key, undefined, issued.browserNonce, at),
    ].map((check) => (check.ok ? "ok" : check.reason));
    expect(reasons).toEqual(["no_cookie", "forged", "forged", "expired", "malformed", "malformed"]);
    expect(
      await checkState(key, issued.state, issued.browserNonce, new Date(at.getTime() + 599_000)),
    ).toMatchObject({
      ok: true,
    });
  });
});
