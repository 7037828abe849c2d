import type { Page } from "playwright-core";
import { untilHydrated } from "../test/support/browser";
import { gone, textOf, visible } from "../test/support/expect";
import { subscribeInline } from "../test/support/newsletter";
import type { ParsedMail } from "mailparser";
import { linkIn, waitForMailsTo } from "../test/support/outbox";
import { describeInBrowser, uniqueAddress, useSite } from "../test/support/site";
import { content } from "../test/support/texts";

const { newsletter } = content;

/**
 * The same link with the token's first character swapped for another one the token uses, so it
 * still looks like a token (and the change is not lost in base64's padding bits).
 */
function tampered(link: string): string {
  const url = new URL(link);
  const [param, token] = [...url.searchParams.entries()][0];
  const other = [...token].find((character) => character !== token[0]);
  if (!other) throw new Error(`Cannot tamper with the token "${token}"`);
  url.searchParams.set(param, `${other}${token.slice(1)}`);
  return url.href;
}

describeInBrowser("the links in the confirmation mail", () => {
  const site = useSite();
  let mail: ParsedMail;

  beforeAll(async () => {
    const { page, context } = await site.visit("/");
    const address = uniqueAddress("links");
    await subscribeInline(page, address);
    mail = (await waitForMailsTo(site.stack.outbox, address))[0];
    await context.close();
  });

  /** Opens a link from the mail, clicks the one button its dialog offers, and returns the dialog's answer. */
  async function follow(
    link: string,
    screen: { title: string; buttonLabel: string },
  ): Promise<{
    page: Page;
    answer: string;
  }> {
    const { page } = await site.visit(link);
    const dialog = await visible(page.getByRole("dialog", { name: screen.title, exact: true }));
    await dialog.getByRole("button", { name: screen.buttonLabel }).click();
    // The dialog is named by its heading, which becomes the answer: find it without the name.
    const answer = await visible(page.getByRole("dialog").getByRole("status"));
    return { page, answer: await textOf(answer) };
  }

  const cases = [
    { action: "confirm", link: () => linkIn(mail, "confirm").href, screen: newsletter.confirm },
    { action: "unsubscribe", link: () => linkIn(mail, "unsubscribe").href, screen: newsletter.unsubscribe },
  ] as const;

  // In order: confirm first, then unsubscribe, as a subscriber would.
  describe.each(cases)("the $action link", ({ action, link, screen }) => {
    it("points at this site's landing page", () => {
      expect(link().startsWith(`${site.url}/?${action}=`)).toBe(true);
    });

    it("succeeds with one click and takes the token out of the address bar", async () => {
      const { page, answer } = await follow(link(), screen);
      expect(answer).toContain(screen.successTitle);
      expect(new URL(page.url()).search).toBe("");
    });

    it("still succeeds on a second visit", async () => {
      const { answer } = await follow(link(), screen);
      expect(answer).toContain(screen.successTitle);
    });

    it("says the link is not valid when the token was tampered with", async () => {
      const { answer } = await follow(tampered(link()), screen);
      expect(answer).toContain(newsletter.links.invalidTitle);
      expect(answer).not.toContain(screen.successTitle);
    });
  });

  it("is forgotten when the visitor closes its dialog: a reload does not ask again", async () => {
    const { page, functionCalls } = await site.visit(linkIn(mail, "confirm").href);
    await visible(page.getByRole("dialog", { name: newsletter.confirm.title, exact: true }));
    await page.keyboard.press("Escape");
    await gone(page.getByRole("dialog"));
    expect(new URL(page.url()).search).toBe("");

    await page.reload({ waitUntil: "networkidle" });
    await untilHydrated(page);
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(functionCalls("confirm-subscription")).toEqual([]);
  });
});
