/** The signup as a visitor does it in the browser: the inline card, the dialog, the page's own errors. */
import type { Locator, Page } from "playwright-core";
import { eventually } from "./eventually";
import { notice, visible } from "./expect";
import { content, SPEC } from "./texts";
import { SIGNUP_CARD_ANCHOR } from "../../supabase/functions/_shared/contract/signup-result-pages";

const { newsletter } = content;

/** The inline card's field and button, found as a visitor finds them. */
export function inlineCard(page: Page): { field: Locator; button: Locator } {
  const card = page.getByRole("region", { name: newsletter.inline.title });
  return {
    field: card.getByPlaceholder(SPEC.inlinePlaceholder),
    button: card.getByRole("button", { name: SPEC.joinNow }),
  };
}

/** Subscribes `address` with the inline card and waits for the welcome. */
export async function subscribeInline(page: Page, address: string): Promise<void> {
  const { field, button } = inlineCard(page);
  await field.fill(address);
  await button.click();
  await visible(notice(page, "success", SPEC.inlineSuccessTitle));
}

/** The signup dialog, opened from the hero. */
export async function openSignupDialog(page: Page): Promise<{ dialog: Locator; field: Locator }> {
  await page.getByRole("button", { name: SPEC.joinTheMovement }).click();
  const dialog = await visible(page.getByRole("dialog", { name: SPEC.joinTheMovement }));
  return { dialog, field: dialog.getByRole("textbox", { name: newsletter.dialog.emailLabel }) };
}

/** What the page wrote with console.error, without Chromium's own network messages. */
export const pageErrors = (messages: { type(): string; text(): string }[]): string[] =>
  messages
    .filter((message) => message.type() === "error" && !message.text().startsWith("Failed to load resource"))
    .map((message) => message.text());

/**
 * Waits until the inline card's top is in the upper half of the window, where following a link to
 * it leaves it (smooth scrolling takes a moment); fails with where it was. Reads layout only, so it
 * works with JavaScript off.
 */
export async function cardInView(page: Page): Promise<void> {
  const viewport = page.viewportSize();
  await eventually(() => page.locator(`#${SIGNUP_CARD_ANCHOR}`).boundingBox(), {
    what: `the signup card's top in the upper half of the ${viewport?.height ?? "?"} px window`,
    timeoutMs: 3_000,
    intervalMs: 100,
    until: (box) => Boolean(box && viewport && box.y >= -1 && box.y < viewport.height / 2),
  });
}
