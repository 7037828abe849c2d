/**
 * Signing in to the content editor as it is deployed: the site on its own origin, and the
 * functions on another, served by Deno behind the stand-in for Supabase's gateway, which serves a
 * function's HTML as plain text. Chromium goes /admin/ → "Login with GitHub" → the site's
 * /admin/sign-in/ → cms-auth → GitHub (a stand-in on loopback) → "Authorize" → the site's
 * /admin/signed-in/, which exchanges its one-time code with the functions and hands the token to
 * the editor. The site here is the tests' build served by the local stack, behind a small proxy
 * that gives its two sign-in pages the functions' address as a build with GATSBY_SUPABASE_URL
 * writes it (a browser-side rewrite would miss the page GitHub's callback redirects to).
 */
import { createServer } from "node:http";
import type { Browser } from "playwright-core";
import { launchTestBrowser, VIEWPORTS } from "../test/support/browser";
import { visible } from "../test/support/expect";
import { freePort } from "../test/support/free-port";
import {
  E2E_REPO,
  type GithubStandIn,
  STAND_IN_CLIENT_ID,
  STAND_IN_CLIENT_SECRET,
  startGithubStandIn,
} from "../test/support/github-stand-in";
import { postgresAvailable, type PostgresServer, startPostgres } from "../test/support/postgres-server";
import { describeInBrowser } from "../test/support/site";
import { type Stack, startStack, TEST_SITE_DIR } from "../test/support/stack";
import { startTestStack, type TestStack } from "../test/support/test-stack";

/** The site at `port`: the stack's answers, the sign-in pages with the functions' address. */
async function startSiteAsBuiltFor(port: number, stackUrl: string, functionsBase: string) {
  const server = createServer(async (request, response) => {
    const answer = await fetch(`${stackUrl}${request.url}`, {
      method: request.method,
      headers: { accept: request.headers.accept ?? "*/*" },
      redirect: "manual",
    });
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!["content-encoding", "content-length", "transfer-encoding", "connection"].includes(name))
        headers[name] = value;
    });
    let body = Buffer.from(await answer.arrayBuffer());
    if (/^\/admin\/sign(ed)?-in\/?(\?|$)/.test(request.url ?? ""))
      body = Buffer.from(
        body.toString("utf8").replace('data-functions="/functions/v1"', `data-functions="${functionsBase}"`),
      );
    response.writeHead(answer.status, headers);
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

(postgresAvailable() ? describeInBrowser : describe.skip)(
  "signing in to the content editor with the functions on Supabase's gateway",
  () => {
    let postgres: PostgresServer;
    let github: GithubStandIn;
    let functions: TestStack;
    let stack: Stack;
    let site: { url: string; close(): Promise<void> };
    let browser: Browser;

    beforeAll(async () => {
      [postgres, github, browser] = await Promise.all([
        startPostgres(),
        startGithubStandIn({ repo: E2E_REPO }),
        launchTestBrowser(),
      ]);
      const [sitePort, gatewayPort] = [await freePort(), await freePort()];
      const siteUrl = `http://127.0.0.1:${sitePort}`;
      const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
      functions = await startTestStack(
        "Deno behind Supabase's gateway",
        {
          SITE_URL: siteUrl,
          ALLOWED_ORIGINS: siteUrl,
          FUNCTIONS_URL: `${gatewayUrl}/functions/v1`,
          CMS_GITHUB_CLIENT_ID: STAND_IN_CLIENT_ID,
          CMS_GITHUB_CLIENT_SECRET: STAND_IN_CLIENT_SECRET,
          CMS_GITHUB_URL: github.url,
        },
        postgres.url,
      );
      stack = await startStack({ PUBLIC_DIR: TEST_SITE_DIR, GATSBY_SUPABASE_URL: gatewayUrl });
      site = await startSiteAsBuiltFor(sitePort, stack.url, `${gatewayUrl}/functions/v1`);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await site?.close();
      await stack?.stop();
      await functions?.close();
      await github?.stop();
      postgres?.stop();
    }, 30_000);

    it("signs the editor in, though no function may answer a page", async () => {
      const gateway = functions.url;
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
      const fromGateway: string[] = [];
      const elsewhere: string[] = [];
      context.on("response", (response) => {
        if (response.url().startsWith(gateway))
          fromGateway.push(`${response.status()} ${response.headers()["content-type"] ?? ""}`);
      });
      await context.route("https://api.github.com/**", async (route) => {
        const url = new URL(route.request().url());
        return route.fulfill({
          response: await route.fetch({ url: `${github.url}${url.pathname}${url.search}` }),
        });
      });
      await context.route(
        (url) => ![site.url, gateway, github.url, "https://api.github.com"].includes(url.origin),
        (route) => {
          elsewhere.push(route.request().url());
          return route.abort();
        },
      );
      const page = await context.newPage();
      await page.goto(`${site.url}/admin/`);
      const popupOpened = page.waitForEvent("popup");
      await page.getByRole("button", { name: "Login with GitHub" }).click();
      const popup = await popupOpened;
      await popup.getByRole("heading", { name: "Authorize the content editor" }).waitFor();
      const closed = popup.waitForEvent("close");
      await popup.getByRole("link", { name: "Authorize" }).click();
      await closed;

      await visible(page.getByRole("heading", { name: "Collections" }));
      const token = github.tokens.at(-1);
      expect(token).toMatch(/^gho_/);
      expect(github.apiAuthorizations).toContain(`token ${token}`);
      // Through the gateway: redirects and JSON only, never a page it would have made plain text.
      expect(fromGateway.length).toBeGreaterThanOrEqual(3);
      expect(fromGateway.filter((answer) => /html|text\/plain/.test(answer))).toEqual([]);
      expect(functions.gateway?.stopped).toEqual([]);
      expect(elsewhere).toEqual([]);
      // Decap may still be reading the repository through the routes: they end quietly first.
      await context.unrouteAll({ behavior: "ignoreErrors" });
      await context.close();
    });
  },
);
