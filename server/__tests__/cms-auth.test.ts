/**
 * cms-auth, the content editor's GitHub sign-in, over HTTP as the browser's popup meets it, against
 * a GitHub stand-in on loopback: on the local stack (PGlite and PostgreSQL) and on the functions'
 * Deno host. A state that is wrong, replayed, expired or from another browser gets a 4xx page and
 * never a token; GitHub's refusals and silence become pages that say so.
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
    const set = response.headers.get("set-cookie");
    if (set) {
      const [pair] = set.split(";");
      this.cookie = pair.endsWith("=") ? "" : pair;
    }
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

forEachBackend("cms-auth on %s", { deno: true }, (backend, serverUrl) => {
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
    const cookie = started.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      new RegExp(`^${COOKIE}=[\\w-]{22}; Path=/functions/v1/cms-auth; Max-Age=600; HttpOnly; SameSite=Lax`),
    );
    // The state is not the cookie: seeing the address GitHub was sent to is not enough to finish.
    expect(authorize.searchParams.get("state")).not.toContain(cookie.split(";")[0].split("=")[1]);
  });

  it("hands the token GitHub issued to the site's own origin only, once", async () => {
    const popup = new Popup(stack);
    const signedIn = await popup.signIn(github);
    const { answer } = signedIn;
    const page = await answer.text();
    expect(answer.status).toBe(200);
    const token = github.tokens.at(-1) as string;
    expect(page).toContain(
      `authorization:github:success:{\\"token\\":\\"${token}\\",\\"provider\\":\\"github\\"}`,
    );
    expect(page).toContain(`var origins = ["${stack.origin}"]`);
    expect(page).toContain("<h1>Signed in</h1>");
    expect(answer.headers.get("cross-origin-opener-policy")).toBe("unsafe-none");
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const policy = answer.headers.get("content-security-policy") ?? "";
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];
    expect(page).toContain(`<script nonce="${nonce}">`);
    expect(policy).toContain("default-src 'none'");

    // The same callback again, cookie and all: the state was used.
    const replay = new Popup(stack);
    replay.cookie = signedIn.cookie;
    const replayed = await replay.open(signedIn.callback);
    const replayedPage = await replayed.text();
    expect(replayed.status).toBe(400);
    expect(replayedPage).toContain("This sign-in address has already been used.");
    expect(replayedPage).not.toContain(token);
    // The success page cleared the cookie: the popup itself cannot finish again either.
    expect(popup.cookie).toBe("");
  });

  it("refuses a callback from another browser, a forged state and an expired one, without asking GitHub", async () => {
    const tokensBefore = github.tokens.length;
    // Another browser: the address, without the cookie.
    const first = new Popup(stack);
    const started = await first.open("/functions/v1/cms-auth?provider=github&scope=repo");
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
    const stranger = await new Popup(stack).open(`/functions/v1/cms-auth/callback?code=abc&state=${state}`);
    expect(stranger.status).toBe(400);
    expect(await stranger.text()).toContain("was not started in this browser");

    // Forged: the signature of another state.
    const [id, expiry] = state.split(".");
    const forged = await first.open(
      `/functions/v1/cms-auth/callback?code=abc&state=${id}.${Number(expiry) + 3600}.${state.split(".")[2]}`,
    );
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("is not one this site made");

    // Expired: eleven minutes later.
    const late = new Popup(stack);
    const lateStart = await late.open("/functions/v1/cms-auth?provider=github");
    const lateState = new URL(lateStart.headers.get("location") ?? "").searchParams.get("state");
    stack.advance(11 * 60);
    const expired = await late.open(`/functions/v1/cms-auth/callback?code=abc&state=${lateState}`);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain("has expired");

    const garbage = await late.open("/functions/v1/cms-auth/callback?code=abc&state=%3Cscript%3E");
    expect(garbage.status).toBe(400);
    expect(await garbage.text()).not.toContain("<script>alert");
    expect(github.tokens.length).toBe(tokensBefore);
  });

  it("says so when the editor cancels on GitHub or GitHub refuses the code, with no token", async () => {
    const cancelled = await new Popup(stack).signIn(github, "Cancel");
    expect(cancelled.answer.status).toBe(403);
    const cancelledPage = await cancelled.answer.text();
    expect(cancelledPage).toContain("Sign-in cancelled");
    expect(cancelledPage).toContain("authorization:github:error:");

    // A code GitHub does not know: its own words come back, escaped.
    const popup = new Popup(stack);
    const started = await popup.open("/functions/v1/cms-auth?provider=github");
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state");
    const refused = await popup.open(`/functions/v1/cms-auth/callback?code=not-a-code&state=${state}`);
    const refusedPage = await refused.text();
    expect(refused.status).toBe(400);
    expect(refusedPage).toContain("GitHub said: The code passed is incorrect or expired.");
    expect(refusedPage).not.toContain("success");
  });

  it("refuses another provider and any method but GET", async () => {
    const other = await new Popup(stack).open("/functions/v1/cms-auth?provider=gitlab");
    expect(other.status).toBe(400);
    expect(await other.text()).toContain("signs editors in with GitHub only");
    const posted = await fetch(`${stack.url}/functions/v1/cms-auth`, { method: "POST" });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET");
  });
});

describe("cms-auth when GitHub is down or the app is not set up", () => {
  it("answers 502 with a page when GitHub cannot be reached, and 503 when it is not configured", async () => {
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
      expect(answer.status).toBe(502);
      const text = await answer.text();
      expect(text).toContain("GitHub could not be reached");
      expect(text).not.toMatch(/at \w+ \(|Error:/);

      const notSet = await fetch(`${unset.url}/functions/v1/cms-auth?provider=github`, {
        redirect: "manual",
      });
      expect(notSet.status).toBe(503);
      expect(await notSet.text()).toContain("not set up");
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
