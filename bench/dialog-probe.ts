/**
 * The probe the dialog benchmarks put in the page (bench/dialog-latency.ts, bench/first-tap.ts):
 * a capture listener keeps the first trusted `startEvent`'s `timeStamp`, and when a dialog becomes
 * visible (added to the page, or shown by an attribute: hidden, open, a class), the first
 * animation frame that finds it so, plus the task after it (the frame has then been drawn), gives
 * `shownAt`. Both on the page's own clock. A string, so the TypeScript runner adds no helpers the
 * page lacks; it works put in before the page's own scripts or evaluated after load.
 */
import type { Page } from "playwright-core";

export const dialogProbe = (startEvent: "click" | "pointerdown") => `(() => {
  const probe = { startAt: null, shownAt: null, watching: false };
  window.dialogProbe = probe;
  addEventListener(${JSON.stringify(startEvent)}, (event) => {
    if (event.isTrusted && probe.startAt === null) probe.startAt = event.timeStamp;
  }, { capture: true });
  const visibleDialog = () =>
    Array.from(document.querySelectorAll('[role="dialog"]')).find((dialog) => dialog.checkVisibility());
  const afterNextFrame = () => {
    if (visibleDialog()) {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { probe.shownAt = performance.now(); };
      channel.port2.postMessage(null);
    } else if (document.querySelector('[role="dialog"]')) {
      requestAnimationFrame(afterNextFrame);
    } else {
      probe.watching = false;
    }
  };
  const observe = () =>
    new MutationObserver(() => {
      if (probe.startAt === null || probe.shownAt !== null || probe.watching) return;
      probe.watching = true;
      requestAnimationFrame(afterNextFrame);
    }).observe(document.body, { childList: true, subtree: true, attributes: true });
  if (document.body) observe();
  else addEventListener("DOMContentLoaded", observe);
})()`;

interface Probe {
  startAt: number | null;
  shownAt: number | null;
  watching: boolean;
}

/** Starts a new measurement: the next start event counts. */
export async function resetProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    Object.assign((window as unknown as { dialogProbe: Probe }).dialogProbe, {
      startAt: null,
      shownAt: null,
      watching: false,
    });
  });
}

/** The milliseconds from the start event to the dialog's first frame; rejects after `timeoutMs`. */
export async function untilDialogShown(page: Page, timeoutMs: number): Promise<number> {
  const handle = await page.waitForFunction(
    () => {
      const { startAt, shownAt } = (window as unknown as { dialogProbe: Probe }).dialogProbe;
      return startAt !== null && shownAt !== null ? shownAt - startAt : null;
    },
    undefined,
    { timeout: timeoutMs, polling: 20 },
  );
  return (await handle.jsonValue()) as number;
}
