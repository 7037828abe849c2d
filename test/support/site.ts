/** One test file's site: the local stack and Chromium started before it, pages opened for each test. */
import type { Browser, BrowserContext, ConsoleMessage, Page, Request, Response } from "playwright-core";
import { testBrowserAvailable, launchTestBrowser, untilHydrated, VIEWPORTS } from "./browser";
import { startStack, type Stack, TEST_SITE_DIR } from "./stack";

/** Gatsby's own bundles: the runtime, React, the app, the page's code. */
export const GATSBY_BUNDLE = /\/(webpack-runtime|framework|app|component---[^/]+)-[0-9a-f]+\.js$/;

/** `describe` when Chromium is installed; otherwise skipped (the global setup says how to install it). */
export const describeInBrowser = testBrowserAvailable() ? describe : describe.skip;

export interface Visit {
  page: Page;
  context: BrowserContext;
  /** The answer to the first navigation. */
  response: Response | null;
  /** Every console message the page wrote so far. */
  consoleMessages: ConsoleMessage[];
  /** Every request the page made to a newsletter function, by function name. */
  functionCalls: (name: string) => Request[];
}

export interface VisitOptions {
  /** False: a browser with JavaScript switched off. */
  javaScript?: boolean;
  /**
   * True (the default): wait until the page's scripts have come by themselves after `load` and
   * React has taken over. False: hand the page over as it stands after the navigation.
   */
  untilHydrated?: boolean;
  /** Runs on the new context before the navigation, e.g. to hold back some requests. */
  prepare?: (context: BrowserContext) => Promise<unknown>;
  /** The page the visitor came from (the navigation's `Referer` and `document.referrer`). */
  referer?: string;
}

export interface Site {
  readonly url: string;
  readonly stack: Stack;
  readonly browser: Browser;
  /** Opens `path` of the site in a fresh browser context at the given width. */
  visit: (
    path?: string,
    viewport?: { width: number; height: number },
    options?: VisitOptions,
  ) => Promise<Visit>;
}

let addressCount = 0;
/** An address no other test uses, so each signup is a new subscriber. */
export const uniqueAddress = (label: string): string =>
  `${label}-${process.pid}-${Date.now()}-${++addressCount}@example.com`;

/**
 * Starts the local stack and Chromium for one test file and stops both after it. Contexts opened
 * by `visit` are closed after each test. Requests to other origins never leave the machine: they
 * get a blank page, so opening an external link shows where it goes without the internet.
 */
export function useSite(env: Record<string, string> = {}): Site {
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const [started, launched] = await Promise.allSettled([
      startStack({ PUBLIC_DIR: TEST_SITE_DIR, ...env }),
      launchTestBrowser(),
    ]);
    if (started.status === "fulfilled") stack = started.value;
    if (launched.status === "fulfilled") browser = launched.value;
    if (started.status === "rejected") throw started.reason;
    if (launched.status === "rejected") throw launched.reason;
  }, 90_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  }, 30_000);

  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not running (did beforeAll fail?)`);
    return value;
  };

  return {
    get url() {
      return required(stack, "The local stack").url;
    },
    get stack() {
      return required(stack, "The local stack");
    },
    get browser() {
      return required(browser, "Chromium");
    },
    async visit(path = "/", viewport = VIEWPORTS.desktop, options = {}) {
      const origin = required(stack, "The local stack").url;
      const javaScriptEnabled = options.javaScript ?? true;
      const context = await required(browser, "Chromium").newContext({ viewport, javaScriptEnabled });
      contexts.push(context);
      await context.route(
        (url) => url.origin !== origin,
        (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<title>elsewhere</title>" }),
      );
      await options.prepare?.(context);
      const page = await context.newPage();
      const consoleMessages: ConsoleMessage[] = [];
      page.on("console", (message) => consoleMessages.push(message));
      const requests: Request[] = [];
      page.on("request", (request) => requests.push(request));
      const response = await page.goto(new URL(path, origin).href, { referer: options.referer });
      if (javaScriptEnabled && (options.untilHydrated ?? true)) {
        await untilHydrated(page);
        // A visitor would see the page load twice: Gatsby reloads a page whose build does not match
        // public/page-data/app-data.json (a redirect's hops are one load).
        const loads = requests.filter(
          (request) =>
            request.isNavigationRequest() && request.frame() === page.mainFrame() && !request.redirectedTo(),
        );
        if (loads.length > 1)
          throw new Error(`${path} loaded ${loads.length} times: the page reloaded itself`);
      }
      return {
        page,
        context,
        response,
        consoleMessages,
        functionCalls: (name) =>
          requests.filter((request) => new URL(request.url()).pathname === `/functions/v1/${name}`),
      };
    },
  };
}
