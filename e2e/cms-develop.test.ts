/**
 * `npm run cms` itself, as an editor runs it, in a copy of the project: Gatsby's development
 * server and the local backend, the editor opened at the address it prints. A new Effect written in
 * the editor is saved into content/effects/ and appears on the development site without a restart
 * (the Effects are nodes of Gatsby's data layer); /admin/ has the built site's headers there too.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { BUILD_FILE, BUILD_FOLDERS } from "../scripts/site-build";
import { readYaml } from "../src/content/yaml";
import { launchTestBrowser, VIEWPORTS } from "../test/support/browser";
import { eventually } from "../test/support/eventually";
import { textOf, visible } from "../test/support/expect";
import { effectTexts } from "../test/support/effects";
import { fillPlaceholders } from "../supabase/functions/_shared/contract/mail-template";
import { freePort } from "../test/support/free-port";
import { startProcess, type StartedProcess, typeScript } from "../test/support/process";
import { describeInBrowser } from "../test/support/site";
import { ROOT } from "../test/support/stack";

/**
 * What `npm run cms` needs of the project (what the build reads, scripts/site-build.ts, with the
 * command's own scripts/, package.json and tsconfig.json), copied into `.cms-develop/` inside it,
 * so the copy finds the project's node_modules as Node does, by walking up (a linked node_modules
 * would load Gatsby twice). Git, the linters and the other tests ignore that folder.
 */
const COPY = path.join(ROOT, ".cms-develop");
const PROJECT = [
  ...BUILD_FOLDERS,
  "scripts",
  ...readdirSync(ROOT).filter((name) => BUILD_FILE.test(name)),
  "package.json",
  "tsconfig.json",
];

const DAY = "2026-11-20";

describeInBrowser("npm run cms", () => {
  let dir: string;
  let cms: StartedProcess;
  let browser: Browser;
  let site: string;
  let editorAddress: string;

  beforeAll(async () => {
    dir = COPY;
    rmSync(dir, { recursive: true, force: true });
    for (const item of PROJECT)
      cpSync(path.join(ROOT, item), path.join(dir, item), {
        recursive: true,
        filter: (source) => !source.includes(`${path.sep}__tests__`),
      });
    const [port, backendPort] = [await freePort(), await freePort()];
    site = `http://localhost:${port}`;
    [cms, browser] = await Promise.all([
      startProcess(process.execPath, typeScript("scripts/cms.ts"), {
        cwd: dir,
        env: {
          ...process.env,
          // Jest's NODE_ENV=test makes Gatsby's babel loader skip its own state; an editor has none.
          NODE_ENV: "development",
          PORT: String(port),
          CMS_BACKEND_PORT: String(backendPort),
          // The day the development site publishes up to: the sample Effects and the new one.
          EFFECTS_TODAY: "2026-11-24",
          EFFECTS_DIR: "content/effects",
          GATSBY_TELEMETRY_DISABLED: "1",
        },
        ready: /You can now view/,
        timeoutMs: 300_000,
      }),
      launchTestBrowser(),
    ]);
    editorAddress =
      /http:\/\/localhost:\d+\/admin\/#cms-backend=\d+&cms-token=[\w-]+/.exec(cms.output())?.[0] ?? "";
  }, 330_000);

  afterAll(async () => {
    await browser?.close();
    await cms?.stop(10_000);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("prints the editor's address with this run's token, and serves /admin/ with the site's headers", async () => {
    expect(editorAddress).toMatch(new RegExp(`^${site}/admin/#cms-backend=\\d+&cms-token=[\\w-]{32}$`));
    const admin = await fetch(`${site}/admin/`);
    expect(admin.status).toBe(200);
    const policy = admin.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("script-src 'self' 'unsafe-eval'");
    expect(policy).toContain("frame-ancestors 'none'");
    const backendPort = /cms-backend=(\d+)/.exec(editorAddress)?.[1];
    expect(policy).toContain(`http://localhost:${backendPort}`);
    expect(admin.headers.get("cross-origin-opener-policy")).toBe("same-origin-allow-popups");
    expect(admin.headers.get("x-robots-tag")).toBe("noindex");
    expect(admin.headers.get("x-frame-options")).toBe("DENY");
  });

  // Longer than the project's limit: Gatsby's development server compiles the editor and the new
  // page on demand (up to a minute for the page alone, and once, with the two other longest browser
  // files beside it on two cores, more than 60 s), after the editor has saved.
  it("shows a new Effect written in the editor on the development site, without a restart", async () => {
    const pageUrl = `${site}/effects/${DAY}/`;
    expect((await fetch(pageUrl)).status).toBe(404);

    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(editorAddress);
    // The token left the address bar as soon as the editor read it.
    expect(page.url()).not.toContain("cms-token");
    await page.getByRole("button", { name: "Login" }).click();
    await page.getByRole("link", { name: "Effects of the Day", exact: true }).click();
    await page.getByRole("link", { name: /Effect of the Day$/ }).click();
    await page.getByRole("textbox", { name: "Day", exact: true }).fill(DAY);
    await page.getByLabel("Title", { exact: true }).fill("Say the hard thing kindly");
    await page.getByLabel("Summary", { exact: true }).fill("Honest words, gently said, keep a family close.");
    await page.locator('[contenteditable="true"]').click();
    await page.keyboard.type("Tell one person today the thing you have been avoiding, and say it with care.");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Publish now").click();
    await visible(page.getByText("Entry saved"));

    const file = path.join(dir, "content/effects", `${DAY}.yaml`);
    expect(existsSync(file)).toBe(true);
    expect(readYaml(readFileSync(file, "utf8"))).toMatchObject({ title: "Say the hard thing kindly" });

    // Gatsby sees the new file, makes its node and its page: no restart.
    const site_ = await context.newPage();
    await eventually(
      async () => {
        const status = (await site_.goto(pageUrl))?.status();
        // The development server renders in the browser, after `load`: give the page a moment.
        const title = site_.getByRole("heading", { name: "Say the hard thing kindly" });
        await title.waitFor({ timeout: 5_000 }).catch(() => undefined);
        return { status, titles: await title.count() };
      },
      {
        what: `${pageUrl} with the new Effect's title`,
        timeoutMs: 120_000,
        intervalMs: 1_000,
        until: ({ status, titles }) => status === 200 && titles > 0,
      },
    );
    await visible(site_.getByText("Tell one person today the thing you have been avoiding"));
    await site_.goto(`${site}/effects/`);
    await visible(site_.getByRole("link", { name: "Say the hard thing kindly" }));

    // The archive's search finds it by a word of its body, as on the built site: the development
    // server writes no pages, so its index is made from the Effects each time the pages are.
    const search = effectTexts.archive.search;
    const field = site_.getByRole("searchbox", { name: search.label });
    await field.pressSequentially("avoiding");
    await field.press("Enter");
    const results = site_.getByRole("list", {
      name: fillPlaceholders(search.oneResultText, { query: "avoiding" }),
    });
    const result = results.getByRole("link", { name: "Say the hard thing kindly", exact: true });
    await visible(result);
    expect(await result.getAttribute("href")).toBe(pageUrl.slice(site.length));
    const item = results.getByRole("listitem");
    expect(await textOf(item)).toContain("November 20, 2026");
    expect(await textOf(item.locator("mark"))).toMatch(/^avoiding\b/);
    await context.close();
  }, 240_000);
});
