/**
 * `npm run screenshots`: pictures of the site for people to look at, at 390 px and 1280 px wide, in
 * the git-ignored `screenshots/`: the landing page (with and without JavaScript), the open signup
 * dialog, the newest Effect, the archive, the welcome page a signup without JavaScript lands on,
 * the privacy page, the 404 page, the newest Effect's mail in a light and a dark mail app, and the four mails a
 * subscriber gets (confirmation, reminder, welcome, Effect; test/support/mail-samples.ts) and the
 * owner's weekly report at 375 px and 1280 px. Builds the site first when it is stale, then serves it on a free port with a
 * throwaway data folder. Prints each file it wrote.
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { SIGNUP_RESULT_PAGES } from "../supabase/functions/_shared/contract/signup-result-pages.ts";
import {
  type MailEdition,
  UNSUBSCRIBE_PLACEHOLDER,
} from "../supabase/functions/_shared/contract/published.ts";
import {
  chromiumAvailable,
  INSTALL_HINT,
  launchChromium,
  untilHydrated,
  VIEWPORTS,
} from "../test/support/browser.ts";
import { untilAnimationsSettle } from "../test/support/expect.ts";
import { MAIL_KINDS, sampleMails } from "../test/support/mail-samples.ts";
import { htmlWithPictures } from "../server/report-mail-command.ts";
import { scrollToBottom } from "../test/support/first-visit.ts";
import { openSignupDialog } from "../test/support/newsletter.ts";
import { ROOT, startStack } from "../test/support/stack.ts";
import { buildSiteIfStale } from "./site-build.ts";

export const SCREENSHOTS_DIR = path.join(ROOT, "screenshots");

interface Shot {
  name: string;
  path: string;
  javaScript?: boolean;
  /** Only the first screen, not the whole page. */
  firstScreen?: boolean;
  before?: (page: Page) => Promise<unknown>;
}

function newestEffectPath(publicDir: string): string | null {
  const feed = JSON.parse(readFileSync(path.join(publicDir, "effects", "feed.json"), "utf8")) as {
    items: Array<{ url: string }>;
  };
  return feed.items[0] ? new URL(feed.items[0].url).pathname : null;
}

async function picture(
  browser: Browser,
  origin: string,
  viewport: { width: number; height: number },
  shot: Shot,
) {
  const javaScriptEnabled = shot.javaScript ?? true;
  const context = await browser.newContext({ viewport, javaScriptEnabled });
  try {
    // Other origins (the channels' sites) never leave the machine.
    await context.route(
      (url) => url.origin !== origin,
      (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<title>elsewhere</title>" }),
    );
    const page = await context.newPage();
    await page.goto(new URL(shot.path, origin).href);
    if (javaScriptEnabled) await untilHydrated(page);
    await shot.before?.(page);
    await untilAnimationsSettle(page);
    const file = path.join(SCREENSHOTS_DIR, `${shot.name}-${viewport.width}.png`);
    await page.screenshot({ path: file, fullPage: !shot.firstScreen });
    return file;
  } finally {
    await context.close();
  }
}

/** The newest Effect's mail as the build published it, shown as a mail app in `scheme` shows it. */
async function pictureMail(
  browser: Browser,
  publicDir: string,
  effectPath: string,
  viewport: { width: number; height: number },
  scheme: "light" | "dark",
) {
  const edition = JSON.parse(
    readFileSync(path.join(publicDir, effectPath, "mail.json"), "utf8"),
  ) as MailEdition;
  const context = await browser.newContext({ viewport, colorScheme: scheme, javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.setContent(
      edition.html.replaceAll(UNSUBSCRIBE_PLACEHOLDER, "https://example.com/?unsubscribe=T"),
    );
    const file = path.join(SCREENSHOTS_DIR, `mail-${scheme}-${viewport.width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  } finally {
    await context.close();
  }
}

/** The five mails, rendered from content/ by the code that sends them, at a phone's and a desktop's width. */
async function pictureSampleMails(browser: Browser): Promise<string[]> {
  const mails = await sampleMails();
  const files: string[] = [];
  for (const kind of MAIL_KINDS) {
    for (const width of [375, 1280]) {
      const context = await browser.newContext({
        viewport: { width, height: 800 },
        javaScriptEnabled: false,
      });
      try {
        const page = await context.newPage();
        await page.setContent(htmlWithPictures(mails[kind]));
        const file = path.join(SCREENSHOTS_DIR, `mail-${kind}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        files.push(file);
      } finally {
        await context.close();
      }
    }
  }
  return files;
}

export async function takeScreenshots(): Promise<string[]> {
  if (!chromiumAvailable()) throw new Error(`No Chromium: ${INSTALL_HINT}`);
  const publicDir = path.join(ROOT, "public");
  buildSiteIfStale(ROOT, publicDir);
  const effect = newestEffectPath(publicDir);
  const shots: Shot[] = [
    {
      name: "landing",
      path: "/",
      // Lazy images below the fold load on the way down, as they would for a reader.
      before: async (page) => {
        await scrollToBottom(page);
        await page.evaluate(() => window.scrollTo({ top: 0, behavior: "instant" }));
        await page.waitForLoadState("networkidle");
      },
    },
    { name: "landing-no-js", path: "/", javaScript: false },
    { name: "dialog", path: "/", firstScreen: true, before: openSignupDialog },
    { name: "effects-archive", path: "/effects/" },
    ...(effect ? [{ name: "effect", path: effect }] : []),
    { name: "signup-welcome", path: SIGNUP_RESULT_PAGES.subscribed, javaScript: false },
    { name: "privacy", path: "/privacy/" },
    { name: "not-found", path: "/no-such-page" },
  ];
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const [stack, browser] = await Promise.all([startStack({ PUBLIC_DIR: publicDir }), launchChromium()]);
  const files: string[] = [];
  try {
    for (const viewport of Object.values(VIEWPORTS)) {
      for (const shot of shots) files.push(await picture(browser, stack.url, viewport, shot));
      if (effect)
        for (const scheme of ["light", "dark"] as const)
          files.push(await pictureMail(browser, publicDir, effect, viewport, scheme));
    }
    files.push(...(await pictureSampleMails(browser)));
  } finally {
    await browser.close();
    await stack.stop();
  }
  return files;
}

if (require.main === module) {
  takeScreenshots().then(
    (files) => console.log(files.map((file) => path.relative(ROOT, file)).join("\n")),
    (error: unknown) => {
      console.error(`screenshots: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
