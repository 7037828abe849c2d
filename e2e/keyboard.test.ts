import { isFocused, notice, tabTo, visible } from "../test/support/expect";
import { holdRequests } from "../test/support/held-requests";
import { describeInBrowser, uniqueAddress, useSite } from "../test/support/site";
import { content, SPEC } from "../test/support/texts";

describeInBrowser("a visitor using only the keyboard", () => {
  const site = useSite();

  it("tabs to Join the Movement, opens the dialog with Enter, types an address and subscribes with Enter", async () => {
    const { page } = await site.visit("/");
    const join = page.getByRole("button", { name: SPEC.joinTheMovement });

    // The hero's button is the first control on the page: it must be reached in a few presses.
    await tabTo(page, join, SPEC.joinTheMovement);
    await page.keyboard.press("Enter");
    const dialog = await visible(page.getByRole("dialog", { name: SPEC.joinTheMovement }));
    expect(await isFocused(dialog.getByRole("textbox", { name: content.newsletter.dialog.emailLabel }))).toBe(
      true,
    );

    await page.keyboard.type(uniqueAddress("keyboard"));
    await page.keyboard.press("Enter");

    await visible(notice(page, "success", SPEC.dialogSuccessTitle));
    await dialog.waitFor({ state: "detached" });
  });
});

describeInBrowser("a keyboard visitor who arrives before the scripts", () => {
  const site = useSite();

  it("tabs to Join the Movement (the first key starts the scripts), presses Enter, and subscribes in the dialog", async () => {
    let release!: () => void;
    const { page } = await site.visit("/", undefined, {
      untilHydrated: false,
      // A slow connection: React arrives only after the visitor has pressed Enter.
      prepare: async (context) => {
        release = await holdRequests(context, /\/framework-[0-9a-f]+\.js$/);
      },
    });
    const join = page.getByRole("link", { name: SPEC.joinTheMovement });
    await tabTo(page, join, SPEC.joinTheMovement);
    await page.keyboard.press("Enter");
    expect(await join.getAttribute("aria-busy")).toBe("true");
    release();

    const dialog = await visible(page.getByRole("dialog", { name: SPEC.joinTheMovement }), 15_000);
    expect(await isFocused(dialog.getByRole("textbox", { name: content.newsletter.dialog.emailLabel }))).toBe(
      true,
    );
    await page.keyboard.type(uniqueAddress("keyboard-early"));
    await page.keyboard.press("Enter");
    await visible(notice(page, "success", SPEC.dialogSuccessTitle));
    await dialog.waitFor({ state: "detached" });
    expect(await isFocused(page.getByRole("button", { name: SPEC.joinTheMovement }))).toBe(true);
  });
});
