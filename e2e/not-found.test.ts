import { gone, textOf, visible } from "../test/support/expect";
import { holdRequests } from "../test/support/held-requests";
import { describeInBrowser, GATSBY_BUNDLE, useSite } from "../test/support/site";
import { content, notFoundContent, SPEC } from "../test/support/texts";
import { untilHydrated } from "../test/support/browser";

describeInBrowser("an address that does not exist", () => {
  const site = useSite();
  const path = "/no-such-page/here";

  it("answers 404 and shows the not-found page with a way home", async () => {
    const { page, response } = await site.visit(path);

    expect(response?.status()).toBe(404);
    const main = page.getByRole("main");
    expect(await textOf(main)).toContain(SPEC.notFoundCode);
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(SPEC.notFoundTitle);
    expect(await textOf(main)).toContain(notFoundContent.text);

    const home = page.getByRole("link", { name: SPEC.returnHome });
    expect(await home.getAttribute("href")).toBe("/");
    await home.click();
    await visible(page.getByRole("heading", { level: 1, name: content.brand.hero.title }));
    expect(new URL(page.url()).pathname).toBe("/");
    await gone(page.getByRole("heading", { name: SPEC.notFoundTitle }));
  });

  it("writes the attempted path to the console as it shows, with nobody touching the page", async () => {
    let release!: () => void;
    const { page, consoleMessages } = await site.visit(path, undefined, {
      untilHydrated: false,
      // Gatsby's scripts held back: the log must not wait for them.
      prepare: async (context) => {
        release = await holdRequests(context, GATSBY_BUNDLE);
      },
    });
    const logged = () =>
      consoleMessages.filter((message) => message.type() === "error" && message.text().includes(path));
    expect(logged()).toHaveLength(1);

    // Once React has taken over, the path is still logged once, not twice.
    release();
    await untilHydrated(page);
    expect(logged()).toHaveLength(1);
  });
});
