/**
 * The page with JavaScript switched off (a blocker, a proxy, scripts that never arrive): the inline
 * card is a real form the function answers with a page of the site, the triggers lead to the card,
 * and a form posted from another site is refused.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { textOf, visible } from "../test/support/expect";
import { cardInView, inlineCard } from "../test/support/newsletter";
import { describeInBrowser, uniqueAddress, useSite } from "../test/support/site";
import { linkIn, mailsTo, waitForMailsTo } from "../test/support/outbox";
import { content, SPEC } from "../test/support/texts";
import { SIGNUP_RESULT_PAGES } from "../supabase/functions/_shared/contract/signup-result-pages";

const { formResults } = content.newsletter;

describeInBrowser("the site without JavaScript", () => {
  const site = useSite();

  it("subscribes through the inline card: the welcome page, then the confirmation mail", async () => {
    const { page } = await site.visit("/", undefined, { javaScript: false });
    const address = uniqueAddress("no-js");
    const { field, button } = inlineCard(page);
    await field.fill(address);
    await Promise.all([page.waitForURL(`**${SIGNUP_RESULT_PAGES.subscribed}`), button.click()]);

    expect(new URL(page.url()).origin).toBe(site.url);
    await visible(page.getByRole("heading", { level: 1, name: SPEC.inlineSuccessTitle }));
    expect(await textOf(page.locator("main"))).toContain(SPEC.successText);
    // The mail's link confirms on the site the visitor used.
    const mail = (await waitForMailsTo(site.stack.outbox, address))[0];
    expect(linkIn(mail, "confirm").href.startsWith(`${site.url}/?confirm=`)).toBe(true);

    // The page leads back to the site.
    await Promise.all([
      page.waitForURL(`${site.url}/`),
      page.getByRole("link", { name: formResults.homeLabel }).click(),
    ]);
  });

  it("an empty card sends nothing and stays on the card", async () => {
    const { page, functionCalls } = await site.visit("/", undefined, { javaScript: false });
    await Promise.all([page.waitForURL(`${site.url}/#newsletter`), inlineCard(page).button.click()]);
    expect(functionCalls("send-confirmation")).toHaveLength(1);
    await cardInView(page);
  });

  it.each([SPEC.joinTheMovement, SPEC.signUp, SPEC.listenNow])(
    "%s is a link to the inline card",
    async (name) => {
      const { page } = await site.visit("/", undefined, { javaScript: false });
      await page.getByRole("link", { name, exact: true }).click();
      await page.waitForURL(`${site.url}/#newsletter`);
      await cardInView(page);
      expect(await page.getByRole("button", { name, exact: true }).count()).toBe(0);
    },
  );

  it("shows every result page the function can send a visitor to, each leading back to the card or the site", async () => {
    const expected: Record<keyof typeof SIGNUP_RESULT_PAGES, [string, string, string]> = {
      subscribed: [SPEC.inlineSuccessTitle, SPEC.successText, formResults.homeLabel],
      failed: [SPEC.failureTitle, SPEC.failureText, formResults.retryLabel],
      rateLimited: [formResults.rateLimitedTitle, formResults.rateLimitedText, formResults.retryLabel],
      invalid: [formResults.invalidTitle, formResults.invalidText, formResults.retryLabel],
    };
    for (const [result, [title, text, linkLabel]] of Object.entries(expected)) {
      const { page, response } = await site.visit(
        SIGNUP_RESULT_PAGES[result as keyof typeof expected],
        undefined,
        {
          javaScript: false,
        },
      );
      expect(response?.status()).toBe(200);
      await visible(page.getByRole("heading", { level: 1, name: title }));
      expect(await textOf(page.locator("main"))).toContain(text);
      const link = page.getByRole("link", { name: linkLabel });
      expect(await link.getAttribute("href")).toBe(result === "subscribed" ? "/" : "/#newsletter");
      expect(await page.locator('meta[name="robots"]').getAttribute("content")).toContain("noindex");
    }
  });

  describe("a form on another site", () => {
    let foreign: Server;
    let foreignUrl: string;

    beforeAll(async () => {
      foreign = createServer((_request, response) => {
        response.setHeader("Content-Type", "text/html; charset=utf-8");
        response.end(
          `<!doctype html><title>elsewhere</title><form method="post" action="${site.url}/functions/v1/send-confirmation">` +
            `<input name="email" aria-label="email"><button>Join</button></form>`,
        );
      });
      await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve));
      foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`;
    });

    afterAll(async () => {
      await new Promise((resolve) => foreign.close(resolve));
    });

    it("is refused with 403 and mails nobody", async () => {
      const context = await site.browser.newContext({ javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        await page.goto(foreignUrl);
        const refused = uniqueAddress("foreign");
        await page.getByRole("textbox", { name: "email" }).fill(refused);
        const [answer] = await Promise.all([
          page.waitForResponse((response) => response.url().endsWith("/functions/v1/send-confirmation")),
          page.getByRole("button", { name: "Join" }).click(),
        ]);
        expect(answer.status()).toBe(403);
        await page.waitForLoadState();
        // The visitor reads why, and where to sign up instead.
        expect(await page.textContent("body")).toContain("nothing was stored and no mail was sent");

        // A signup from the site itself, made after, arrives; the refused one never does.
        const { page: ours } = await site.visit("/", undefined, { javaScript: false });
        const accepted = uniqueAddress("after-foreign");
        await inlineCard(ours).field.fill(accepted);
        await Promise.all([
          ours.waitForURL(`**${SIGNUP_RESULT_PAGES.subscribed}`),
          inlineCard(ours).button.click(),
        ]);
        await waitForMailsTo(site.stack.outbox, accepted);
        expect(await mailsTo(site.stack.outbox, refused)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
