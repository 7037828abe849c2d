/** Waits and assertions on what a visitor sees: texts in order, notices, focus, settled animations. */
import type { Locator, Page } from "playwright-core";

const collapse = (text: string): string => text.replace(/\s+/g, " ").trim();

/** The text a locator holds, as written in the page (before CSS changes its case), spaces collapsed. */
export async function textOf(locator: Locator): Promise<string> {
  return collapse((await locator.textContent()) ?? "");
}

/**
 * Fails unless every text appears in `haystack`, each after the previous one, naming the first
 * text that is missing or out of place.
 */
export function expectInOrder(haystack: string, texts: readonly string[]): void {
  let from = 0;
  for (const text of texts.map(collapse)) {
    const at = haystack.indexOf(text, from);
    if (at === -1) {
      const anywhere = haystack.indexOf(text) !== -1;
      throw new Error(
        anywhere
          ? `"${text}" appears, but before the text preceding it in the expected order`
          : `"${text}" is not on the page`,
      );
    }
    from = at + text.length;
  }
}

/** Resolves once the element is visible; fails after `timeout` ms with what was awaited. */
export async function visible(locator: Locator, timeout = 10_000): Promise<Locator> {
  await locator.waitFor({ state: "visible", timeout });
  return locator;
}

export async function gone(locator: Locator, timeout = 10_000): Promise<void> {
  await locator.waitFor({ state: "detached", timeout });
}

/** True when the element has the keyboard focus. */
export const isFocused = (locator: Locator): Promise<boolean> =>
  locator.evaluate((element) => element === document.activeElement);

/** The notice area's success (role=status) or failure (role=alert) notice holding `title`. */
export const notice = (page: Page, tone: "success" | "failure", title: string): Locator =>
  page
    .locator("#notices")
    .getByRole(tone === "success" ? "status" : "alert")
    .filter({ hasText: title });

/**
 * Waits for entrance animations (dialog, notice) to finish, so what is measured or pictured is what
 * a visitor sees a moment later. Long-running ones, like a notice's countdown bar, are not waited for.
 */
export async function untilAnimationsSettle(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .filter((animation) => Number(animation.effect?.getComputedTiming().duration ?? 0) < 2_000)
        .every((animation) => animation.playState !== "running"),
    undefined,
    { timeout: 5_000 },
  );
}

/** Presses Tab until `target` has the focus, as a keyboard visitor does; fails after `most` presses. */
export async function tabTo(page: Page, target: Locator, name: string, most = 5): Promise<void> {
  let presses = 0;
  while (!(await isFocused(target))) {
    if (++presses > most) throw new Error(`"${name}" not reached after ${most} presses of Tab`);
    await page.keyboard.press("Tab");
  }
}
