import { gone, isFocused, notice, textOf, visible } from "../test/support/expect";
import { inlineCard, openSignupDialog, pageErrors, subscribeInline } from "../test/support/newsletter";
import { linkIn, waitForMailsTo } from "../test/support/outbox";
import { holdRequests } from "../test/support/held-requests";
import { describeInBrowser, uniqueAddress, useSite } from "../test/support/site";
import { SPEC } from "../test/support/texts";

const SEND_CONFIRMATION = "**/functions/v1/send-confirmation";

describeInBrowser("subscribing to the newsletter", () => {
  const site = useSite();

  describe("in the dialog", () => {
    it("shows Sending... on a disabled button while pending, then welcomes, clears, closes and mails", async () => {
      const { page } = await site.visit("/");
      // Hold the request on its way to the real function until the pending state has been seen.
      const release = await holdRequests(page, SEND_CONFIRMATION);
      const address = uniqueAddress("dialog");
      const { dialog, field } = await openSignupDialog(page);
      await field.fill(address);
      await dialog.getByRole("button", { name: SPEC.joinNow }).click();

      const pending = await visible(dialog.getByRole("button", { name: SPEC.sending }));
      expect(await pending.isDisabled()).toBe(true);
      // Closing now would lose the address if the request failed: the dialog stays, focus stays in it.
      await page.keyboard.press("Escape");
      await page.keyboard.press("Tab");
      expect(await dialog.isVisible()).toBe(true);
      expect(await isFocused(field)).toBe(true);
      release();

      const welcome = await visible(notice(page, "success", SPEC.dialogSuccessTitle));
      expect(await welcome.getByText(SPEC.dialogSuccessTitle, { exact: true }).count()).toBe(1);
      expect(await textOf(welcome)).toContain(SPEC.successText);
      await gone(dialog);
      expect(await isFocused(page.getByRole("button", { name: SPEC.joinTheMovement }))).toBe(true);
      const reopened = await openSignupDialog(page);
      expect(await reopened.field.inputValue()).toBe("");

      const mail = (await waitForMailsTo(site.stack.outbox, address))[0];
      expect(linkIn(mail, "confirm").href.startsWith(`${site.url}/?confirm=`)).toBe(true);
      expect(linkIn(mail, "unsubscribe").href.startsWith(`${site.url}/?unsubscribe=`)).toBe(true);
    });

    it("keeps the address and the dialog, and logs the error, when the function answers 500", async () => {
      const { page, consoleMessages } = await site.visit("/");
      // The one fake: the hosted runtime failing, which the local stack cannot be made to do.
      await page.route(SEND_CONFIRMATION, (route) =>
        route.fulfill({
          status: 500,
          contentType: "application/json",
          body: JSON.stringify({ error: { code: "internal", message: "The runtime failed" } }),
        }),
      );
      const address = uniqueAddress("failure");
      const { dialog, field } = await openSignupDialog(page);
      await field.fill(address);
      await dialog.getByRole("button", { name: SPEC.joinNow }).click();

      const failure = await visible(notice(page, "failure", SPEC.failureTitle));
      expect(await textOf(failure)).toContain(SPEC.failureText);
      expect(await dialog.isVisible()).toBe(true);
      expect(await field.inputValue()).toBe(address);
      expect(await dialog.getByRole("button", { name: SPEC.joinNow }).isEnabled()).toBe(true);
      expect(pageErrors(consoleMessages)).not.toEqual([]);
    });
  });

  describe("in the inline card", () => {
    it("sends nothing for an empty field, then welcomes the visitor and clears the field", async () => {
      const { page, functionCalls } = await site.visit("/");
      const { field, button } = inlineCard(page);
      await button.click();
      const address = uniqueAddress("inline");
      await field.fill(address);
      await button.click();

      const welcome = await visible(notice(page, "success", SPEC.inlineSuccessTitle));
      expect(await textOf(welcome)).toContain(SPEC.successText);
      expect(await field.inputValue()).toBe("");
      // The empty submit came first: had it sent anything, there would be two calls and a notice more.
      const calls = functionCalls("send-confirmation").filter((request) => request.method() === "POST");
      expect(calls.map((request) => request.postDataJSON())).toEqual([
        { email: address, signup_form: "inline", signup_page: "/" },
      ]);
      expect(await page.locator("#notices").getByRole("alert").count()).toBe(0);
      await waitForMailsTo(site.stack.outbox, address);
    });

    it("welcomes without motion a visitor who asks for reduced motion", async () => {
      const { page } = await site.visit("/");
      await page.emulateMedia({ reducedMotion: "reduce" });
      await subscribeInline(page, uniqueAddress("still"));

      // Only the countdown bar runs (it closes the notice); nothing bounces, slides or zooms.
      const moving = await notice(page, "success", SPEC.inlineSuccessTitle).evaluate((element) =>
        element
          .getAnimations({ subtree: true })
          .filter(
            (animation) => !(animation.effect as KeyframeEffect).target?.matches('[role="progressbar"]'),
          )
          .map((animation) => (animation as CSSAnimation).animationName),
      );
      expect(moving).toEqual([]);
    });
  });
});
