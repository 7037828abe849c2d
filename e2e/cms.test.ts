/**
 * The content editor as an editor meets it with `npm run cms`: Decap CMS at /admin/ of the built
 * site, saving through the local backend (scripts/cms-backend.ts) into a temporary copy of
 * content/. The backend listens on a free port, which the stack is told as `npm run cms` tells
 * Gatsby (CMS_BACKEND_PORT, for /admin/'s policy), and the page is opened at the address
 * `npm run cms` prints with that port and this run's token: nothing here needs the default port.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readYaml as parseYaml } from "../src/content/yaml";
import type { Browser, BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { checkContent, contentTypeForFile, effectFields } from "../src/content/schema";
import { launchTestBrowser, VIEWPORTS } from "../test/support/browser";
import { type CmsBackendCopy, startCmsBackendCopy } from "../test/support/cms-backend";
import { visible } from "../test/support/expect";
import { freePort } from "../test/support/free-port";
import { describeInBrowser } from "../test/support/site";
import { ROOT, type Stack, startStack, TEST_SITE_DIR } from "../test/support/stack";

const SCREENSHOTS = path.join(__dirname, "screenshots");

describeInBrowser("the content editor at /admin/", () => {
  let stack: Stack;
  let backend: CmsBackendCopy;
  let browser: Browser;

  beforeAll(async () => {
    const backendPort = await freePort();
    const started = await Promise.allSettled([
      startStack({ PUBLIC_DIR: TEST_SITE_DIR, CMS_BACKEND_PORT: String(backendPort) }),
      launchTestBrowser(),
    ]);
    const [site, chromium] = started;
    if (site.status === "fulfilled") stack = site.value;
    if (chromium.status === "fulfilled") browser = chromium.value;
    for (const result of started) if (result.status === "rejected") throw result.reason;
    backend = await startCmsBackendCopy([stack.url], backendPort);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([backend?.stop(), stack?.stop()]);
  }, 30_000);

  /**
   * A logged-in editor on the CMS's start page, with every console message kept. The page is
   * opened as `npm run cms` prints it, with the backend's port and token; a request anywhere but
   * the site and the backend is refused and kept.
   */
  async function openEditor(viewport: { width: number; height: number } = VIEWPORTS.desktop) {
    const context = await browser.newContext({ viewport });
    const elsewhere: string[] = [];
    await context.route(
      (url) => url.origin !== stack.url && url.origin !== `http://127.0.0.1:${backend.port}`,
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort();
      },
    );
    const page = await context.newPage();
    const messages: ConsoleMessage[] = [];
    page.on("console", (message) => messages.push(message));
    const response = await page.goto(
      `${stack.url}/admin/#cms-backend=${backend.port}&cms-token=${backend.token}`,
    );
    await page.getByRole("button", { name: "Login" }).click();
    await page.getByRole("heading", { name: "Collections" }).waitFor();
    const refusals = () =>
      messages.filter((message) => /Content Security Policy|Refused to/i.test(message.text())).map(String);
    return { page, context, response, elsewhere, refusals };
  }

  /** Closes the window; requests to the backend still in flight (the CMS polls) are dropped quietly. */
  async function closeEditor(context: BrowserContext): Promise<void> {
    await context.unrouteAll({ behavior: "ignoreErrors" });
    await context.close();
  }

  async function publish(page: Page): Promise<void> {
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Publish now").click();
  }

  /** The toggle that opens an item of a list; Decap gives it no name, so it is found by the item's summary. */
  const openItem = (page: Page, summary: string) =>
    page.getByText(summary, { exact: true }).locator("xpath=preceding-sibling::div[1]//button[1]").click();

  const readYaml = (file: string) => parseYaml(readFileSync(path.join(backend.repoDir, file), "utf8"));

  it("serves the editor with its own policy, kept out of search, without loosening the site's", async () => {
    const { page, context, response, refusals, elsewhere } = await openEditor();
    const adminPolicy = response?.headers()["content-security-policy"] ?? "";
    const sitePolicy = (await page.request.get(`${stack.url}/`)).headers()["content-security-policy"] ?? "";
    expect(adminPolicy).toContain("script-src 'self' 'unsafe-eval'");
    expect(adminPolicy).toContain("frame-ancestors 'none'");
    // The backend's own port, as the stack was told it: the editor saves there (the tests below).
    expect(adminPolicy).toContain(
      `connect-src 'self' https://api.github.com http://localhost:${backend.port} http://127.0.0.1:${backend.port}`,
    );
    // The site allows WebAssembly for its search ('wasm-unsafe-eval'), never `eval` itself.
    expect(sitePolicy).not.toContain("'unsafe-eval'");
    expect(sitePolicy).toContain("script-src 'self' 'sha256-");
    expect(response?.headers()["x-robots-tag"]).toBe("noindex");
    expect(await page.locator('meta[name="robots"]').getAttribute("content")).toContain("noindex");
    const sitemap = await (await page.request.get(`${stack.url}/sitemap-0.xml`)).text();
    expect(sitemap).toContain("<loc>");
    expect(sitemap).not.toContain("/admin");

    for (const name of [
      "Effects of the Day",
      "Brand and hero",
      "Landing page",
      "Story and biography",
      "Channels",
      "Core values",
      "Newsletter signup",
      "Page not found (404)",
    ]) {
      await visible(page.getByRole("link", { name, exact: true }));
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "admin-1280.png") });
    const mobile = await openEditor(VIEWPORTS.mobile);
    await mobile.page.screenshot({ path: path.join(SCREENSHOTS, "admin-390.png") });
    await closeEditor(mobile.context);
    expect(refusals()).toEqual([]);
    expect(elsewhere).toEqual([]);
    await closeEditor(context);
  });

  it("saves a core value's description into content/core-values.yaml, still valid for the build", async () => {
    const before = readYaml("content/core-values.yaml") as {
      items: { title: string; description: string }[];
    };
    const { page, context, refusals } = await openEditor();
    await page.getByRole("link", { name: "Core values", exact: true }).click();
    await page.getByRole("link", { name: "Core values", exact: true }).nth(1).click();
    await openItem(page, "Confidence");
    const description = page.getByLabel("Description", { exact: true }).first();
    expect(await description.inputValue()).toBe(before.items[0].description);
    const written = "Trust the work you have put in; certainty grows from it.";
    await description.fill(written);
    await publish(page);
    await visible(page.getByText("Entry saved"));

    const after = readYaml("content/core-values.yaml") as typeof before;
    expect(after.items[0]).toEqual({ title: "Confidence", description: written });
    expect(after.items.slice(1)).toEqual(before.items.slice(1));
    expect(after).toMatchObject({ title: (before as unknown as { title: string }).title });
    expect(checkContent(contentTypeForFile("core-values")!.fields, after)).toEqual([]);
    // The repository's own file is not what the test edited.
    expect(readFileSync(path.join(ROOT, "content/core-values.yaml"), "utf8")).not.toContain(written);
    expect(refusals()).toEqual([]);
    await closeEditor(context);
  });

  it("saves a story paragraph, a list of texts, keeping the others and their order", async () => {
    type Story = Record<"why" | "biography", { title: string; paragraphs: string[] }>;
    const before = readYaml("content/story.yaml") as Story;
    const { page, context, refusals } = await openEditor();
    await page.getByRole("link", { name: "Story and biography", exact: true }).click();
    await page.getByRole("link", { name: "Story and biography", exact: true }).nth(1).click();
    await openItem(page, before.why.paragraphs[1]);
    const written = "This movement exists so no father has to choose between providing and being present.";
    await page.getByLabel("Paragraph", { exact: true }).nth(1).fill(written);
    await publish(page);
    await visible(page.getByText("Entry saved"));

    const after = readYaml("content/story.yaml") as Story;
    expect(after.why.paragraphs).toEqual([
      before.why.paragraphs[0],
      written,
      ...before.why.paragraphs.slice(2),
    ]);
    expect(after.biography).toEqual(before.biography);
    expect(checkContent(contentTypeForFile("story")!.fields, after)).toEqual([]);
    expect(refusals()).toEqual([]);
    await closeEditor(context);
  });

  it("refuses to save a blank description, and the file stays as it was", async () => {
    const file = path.join(backend.repoDir, "content/core-values.yaml");
    const before = readFileSync(file, "utf8");
    const { page, context } = await openEditor();
    await page.getByRole("link", { name: "Core values", exact: true }).click();
    await page.getByRole("link", { name: "Core values", exact: true }).nth(1).click();
    await openItem(page, "Respect");
    await page.getByLabel("Description", { exact: true }).nth(2).fill("   ");
    await publish(page);
    await visible(page.getByText(/Oops, you've missed a required field|Must not be empty/).first());
    expect(readFileSync(file, "utf8")).toBe(before);
    await closeEditor(context);
  });

  it("creates a new day's Effect as content/effects/YYYY-MM-DD.yaml holding only its fields", async () => {
    const { page, context, refusals } = await openEditor();
    await page.getByRole("link", { name: "Effects of the Day", exact: true }).click();
    // "New Effect of the Day", though the word is drawn as an icon in Decap's button.
    await page.getByRole("link", { name: /Effect of the Day$/ }).click();
    // By its accessible name: "Day", without the "(optional)" editor.css hides.
    await page.getByRole("textbox", { name: "Day", exact: true }).fill("2031-03-14");
    await page.getByLabel("Title", { exact: true }).fill("Start before you are ready");
    await page
      .getByLabel("Summary", { exact: true })
      .fill("Waiting for the perfect moment is how good plans turn into old plans.");
    // The rich-text box is not tied to its label; it is the page's one editable area.
    await page.locator('[contenteditable="true"]').click();
    await page.keyboard.type("Pick one thing you have been putting off and do the first step today.");
    await publish(page);
    await visible(page.getByText("Entry saved"));

    const file = path.join(backend.repoDir, "content/effects/2031-03-14.yaml");
    expect(existsSync(file)).toBe(true);
    const effect = readYaml("content/effects/2031-03-14.yaml");
    expect(effect).toEqual({
      title: "Start before you are ready",
      summary: "Waiting for the perfect moment is how good plans turn into old plans.",
      body: "Pick one thing you have been putting off and do the first step today.",
    });
    expect(checkContent(effectFields, effect)).toEqual([]);
    expect(refusals()).toEqual([]);
    await closeEditor(context);
  });

  it("previews an Effect as its page and its mail, and a core value as the landing page shows it", async () => {
    const { page, context, refusals } = await openEditor();
    const texts = parseYaml(readFileSync(path.join(ROOT, "content/effect-pages.yaml"), "utf8")) as {
      mail: { readOnlineLabel: string };
    };
    await page.getByRole("link", { name: "Effects of the Day", exact: true }).click();
    await page.getByRole("link", { name: /Effect of the Day$/ }).click();
    await page.getByRole("textbox", { name: "Day", exact: true }).fill("2031-04-02");
    await page.getByLabel("Title", { exact: true }).fill("Listen first");
    await page.getByLabel("Summary", { exact: true }).fill("Hear the whole sentence before you answer it.");
    await page.locator('[contenteditable="true"]').click();
    await page.keyboard.type("Ask one question today and wait for the whole answer.");

    const preview = page.frameLocator("#preview-pane");
    const title = preview.getByRole("heading", { name: "Listen first", level: 1 });
    await visible(title);
    // The site's CSS is in the pane: the display face and the page's cream background.
    expect(await title.evaluate((node) => getComputedStyle(node).fontFamily)).toContain("Anton");
    expect(await preview.locator("article").evaluate((node) => getComputedStyle(node).backgroundColor)).toBe(
      "rgb(250, 246, 240)",
    );
    await visible(preview.getByText("Ask one question today and wait for the whole answer."));
    await visible(preview.getByText("April 2, 2031"));
    const mail = preview.frameLocator('iframe[title="The Effect as the mail will look"]');
    await visible(mail.getByRole("heading", { name: "Listen first" }));
    await visible(mail.getByRole("link", { name: texts.mail.readOnlineLabel }));
    await page.screenshot({ path: path.join(SCREENSHOTS, "admin-effect-preview-1280.png") });

    // What the build would refuse is said in the preview, before anything is saved.
    await page.locator('[contenteditable="true"]').click();
    await page.keyboard.type(" <b>now</b>");
    await visible(preview.getByRole("alert").getByText(/raw HTML is not allowed.*"<b>"/));

    expect(refusals()).toEqual([]);
    await closeEditor(context);

    const second = await openEditor();
    await second.page.getByRole("link", { name: "Core values", exact: true }).click();
    await second.page.getByRole("link", { name: "Core values", exact: true }).nth(1).click();
    const values = second.page.frameLocator("#preview-pane");
    await visible(values.getByRole("heading", { name: "Confidence", level: 3 }));
    await openItem(second.page, "Confidence");
    await second.page
      .getByLabel("Description", { exact: true })
      .first()
      .fill("Certainty grows from the work.");
    await visible(values.getByText("Certainty grows from the work."));
    expect(second.refusals()).toEqual([]);
    await closeEditor(second.context);
  });

  it("edits a saved Effect in place: its day stays its file name and is not written into it", async () => {
    const dir = path.join(backend.repoDir, "content/effects");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, "2031-01-05.yaml"),
      "title: Keep the promise\nsummary: Small promises kept are how trust is built.\nbody: |\n  Keep one today.\n",
    );
    const { page, context, refusals } = await openEditor();
    await page.getByRole("link", { name: "Effects of the Day", exact: true }).click();
    await page.getByRole("link", { name: /2031-01-05: Keep the promise/ }).click();
    // The day is shown, not offered for change.
    await visible(page.getByText("2031-01-05", { exact: true }));
    expect(await page.locator('input[type="date"]').count()).toBe(0);
    await page.getByLabel("Title", { exact: true }).fill("Keep the small promise");
    await page.screenshot({ path: path.join(SCREENSHOTS, "admin-effect-1280.png") });
    await publish(page);
    await visible(page.getByText("Entry saved"));

    expect(readYaml("content/effects/2031-01-05.yaml")).toEqual({
      title: "Keep the small promise",
      summary: "Small promises kept are how trust is built.",
      body: expect.stringMatching(/^Keep one today\.\n?$/),
    });
    // No second file for the same day, and none named otherwise.
    expect(readdirSync(dir).filter((name) => !/^\d{4}-\d{2}-\d{2}\.yaml$/.test(name))).toEqual([]);
    expect(refusals()).toEqual([]);
    await closeEditor(context);
  });
});
