/** What a first visit downloads as script, measured in Chromium, and the budget it is held to. */
import { gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { untilHydrated } from "./browser";

export interface ScriptFile {
  /** The file name, e.g. framework-208b7a2b.js */
  file: string;
  url: string;
  bytes: number;
  /** The body gzipped at zlib's default level, as a static host would send it. */
  gzipBytes: number;
}

/**
 * The first visit's JavaScript budget (README, "Performance"): 100 KB gzipped, counted as Chrome DevTools and
 * Lighthouse count (1 KB = 1024 bytes).
 */
export const FIRST_VISIT_BUDGET_BYTES = 100 * 1024;

export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** Scrolls one screen at a time to the bottom, letting lazy content start loading on the way. */
export async function scrollToBottom(page: Page): Promise<void> {
  for (let step = 0; step < 100; step += 1) {
    const atBottom = await page.evaluate(async () => {
      // "instant": the page asks for smooth scrolling, which would lag behind these steps.
      window.scrollBy({ top: window.innerHeight, behavior: "instant" });
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;
    });
    if (atBottom) return;
  }
  throw new Error("The page did not reach its bottom after 100 screens");
}

/** A first visit read to the end: load, let the page run, scroll to the bottom, let the network settle. */
export async function readOnce(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await untilHydrated(page);
  await scrollToBottom(page);
  await page.waitForLoadState("networkidle");
}

/**
 * Everything a first visit downloads as script: loads `url`, waits for the page to run, scrolls
 * once to the bottom and waits for the network to settle. Each response body is gzipped here,
 * so the figure does not depend on how the server compresses.
 */
export async function firstVisitScripts(page: Page, url: string): Promise<ScriptFile[]> {
  const pending: Promise<ScriptFile>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script") return;
    pending.push(
      response.body().then((body) => ({
        file: new URL(response.url()).pathname.split("/").pop() || response.url(),
        url: response.url(),
        bytes: body.length,
        gzipBytes: gzipSync(body).length,
      })),
    );
  });
  await readOnce(page, url);
  return Promise.all(pending);
}

export const totalGzipBytes = (files: ScriptFile[]): number =>
  files.reduce((sum, file) => sum + file.gzipBytes, 0);

/** Chunks that must wait for the first submit: supabase-js and the notices (react-toastify). */
export const ON_DEMAND_CHUNK = /^(supabase|notices)-[0-9a-f]+\.js$/;
