/** Requests held on their way, as a slow connection holds them, until the test lets them go. */
import type { BrowserContext, Page } from "playwright-core";

/** Holds every request matching `pattern` until the returned function is called. */
export async function holdRequests(
  target: BrowserContext | Page,
  pattern: string | RegExp,
): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await target.route(pattern, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}
