/**
 * Signing in to the content editor on a deployed site, in Chromium: /admin/ on the local stack,
 * "Login with GitHub", the popup through cms-auth to GitHub (a stand-in on loopback, since GitHub
 * cannot be reached here), "Authorize", and the editor's dashboard, with the CMS calling GitHub's
 * API with the token GitHub issued. The popup keeps its opener only because /admin/ is served with
 * `Cross-Origin-Opener-Policy: same-origin-allow-popups`.
 */
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { launchTestBrowser, VIEWPORTS } from "../test/support/browser";
import { visible } from "../test/support/expect";
import {
  E2E_REPO,
  type GithubStandIn,
  STAND_IN_CLIENT_ID,
  STAND_IN_CLIENT_SECRET,
  startGithubStandIn,
} from "../test/support/github-stand-in";
import { describeInBrowser } from "../test/support/site";
import { type Stack, startStack, TEST_SITE_DIR } from "../test/support/stack";

const SCREENSHOTS = path.join(__dirname, "screenshots");

describeInBrowser("signing in to the content editor with GitHub", () => {
  let github: GithubStandIn;
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    github = await startGithubStandIn({ repo: E2E_REPO });
    [stack, browser] = await Promise.all([
      startStack({
        PUBLIC_DIR: TEST_SITE_DIR,
        CMS_GITHUB_CLIENT_ID: STAND_IN_CLIENT_ID,
        CMS_GITHUB_CLIENT_SECRET: STAND_IN_CLIENT_SECRET,
        CMS_GITHUB_URL: github.url,
      }),
      launchTestBrowser(),
    ]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await github?.stop();
  }, 30_000);

  /** A window on /admin/: GitHub's API is the stand-in's; anything else off this machine is refused and kept. */
  async function editorWindow(): Promise<{ context: BrowserContext; elsewhere: string[] }> {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const elsewhere: string[] = [];
    await context.route("https://api.github.com/**", async (route) => {
      const url = new URL(route.request().url());
      return route.fulfill({
        response: await route.fetch({ url: `${github.url}${url.pathname}${url.search}` }),
      });
    });
    await context.route(
      (url) => ![stack.url, github.url, "https://api.github.com"].includes(url.origin),
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort();
      },
    );
    return { context, elsewhere };
  }

  it("opens GitHub in a popup, and after Authorize the editor is signed in with GitHub's token", async () => {
    const { context, elsewhere } = await editorWindow();
    const page = await context.newPage();
    const admin = await page.goto(`${stack.url}/admin/`);
    expect(admin?.headers()["cross-origin-opener-policy"]).toBe("same-origin-allow-popups");
    const popupOpened = page.waitForEvent("popup");
    await page.getByRole("button", { name: "Login with GitHub" }).click();
    const popup = await popupOpened;
    await popup.getByRole("heading", { name: "Authorize the content editor" }).waitFor();
    expect(new URL(popup.url()).origin).toBe(github.url);
    const closed = popup.waitForEvent("close");
    await popup.getByRole("link", { name: "Authorize" }).click();
    // The CMS closes the popup once it has the token.
    await closed;

    await visible(page.getByRole("heading", { name: "Collections" }));
    await visible(page.getByRole("link", { name: "Effects of the Day", exact: true }));
    const [token] = github.tokens;
    expect(token).toMatch(/^gho_/);
    expect(github.apiAuthorizations).toContain(`token ${token}`);
    const stored = await page.evaluate(() => window.localStorage.getItem("decap-cms-user"));
    expect(JSON.parse(stored ?? "{}")).toMatchObject({ token, backendName: "github" });
    await page.screenshot({ path: path.join(SCREENSHOTS, "admin-signed-in-1280.png") });
    expect(elsewhere).toEqual([]);
    // Decap may still be reading the repository through the routes: they end quietly first.
    await context.unrouteAll({ behavior: "ignoreErrors" });
    await context.close();
  });

  it("shows why when the editor cancels on GitHub, and stays signed out", async () => {
    const { context } = await editorWindow();
    const page = await context.newPage();
    await page.goto(`${stack.url}/admin/`);
    const popupOpened = page.waitForEvent("popup");
    await page.getByRole("button", { name: "Login with GitHub" }).click();
    const popup = await popupOpened;
    const closed = popup.waitForEvent("close");
    await popup.getByRole("link", { name: "Cancel" }).click();
    await closed;
    await visible(page.getByText("The content editor was not authorized on GitHub", { exact: false }));
    await visible(page.getByRole("button", { name: "Login with GitHub" }));
    expect(await page.evaluate(() => window.localStorage.getItem("decap-cms-user"))).toBeNull();
    // Decap may still be reading the repository through the routes: they end quietly first.
    await context.unrouteAll({ behavior: "ignoreErrors" });
    await context.close();
  });

  it("cuts the popup off when /admin/ is served with the site's own window policy", async () => {
    // What the deployed site did before: COOP same-origin on /admin/ too. The popup then has no
    // opener, says so, and the editor stays signed out.
    const { context } = await editorWindow();
    await context.route(`${stack.url}/admin/`, async (route) => {
      const response = await route.fetch();
      return route.fulfill({
        response,
        headers: { ...response.headers(), "cross-origin-opener-policy": "same-origin" },
      });
    });
    const page = await context.newPage();
    await page.goto(`${stack.url}/admin/`);
    // Not a "popup" any more: the window policy made it a stranger.
    const windowOpened = context.waitForEvent("page");
    await page.getByRole("button", { name: "Login with GitHub" }).click();
    const popup = await windowOpened;
    await popup.getByRole("link", { name: "Authorize" }).click();
    await visible(popup.getByText("This window was not opened by the content editor", { exact: false }));
    expect(await page.evaluate(() => window.localStorage.getItem("decap-cms-user"))).toBeNull();
    // Decap may still be reading the repository through the routes: they end quietly first.
    await context.unrouteAll({ behavior: "ignoreErrors" });
    await context.close();
  });
});
