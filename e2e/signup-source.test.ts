/**
 * Where each reader came from, in Chromium (issue 42): a visitor lands on
 * `/?utm_source=podcast&utm_medium=audio&utm_campaign=ep42` from a YouTube link, goes to the
 * archive and on to an Effect by its links, and subscribes with the Effect's card; the operator's
 * `subscribers export` then says so. With JavaScript, and with Gatsby's scripts never arriving (the
 * page's own inline module carries the landing values to the form's plain post), every column is
 * there. Without JavaScript only the form and its page are: nothing can carry the landing address
 * or its referrer from page to page without a script or a cookie.
 */
import type { Page } from "playwright-core";
import { untilHydrated } from "../test/support/browser";
import { notice, visible } from "../test/support/expect";
import { exportedRow } from "../test/support/export-csv";
import { inlineCard, openSignupDialog, subscribeInline } from "../test/support/newsletter";
import { describeInBrowser, GATSBY_BUNDLE, uniqueAddress, useSite } from "../test/support/site";
import { content, SPEC } from "../test/support/texts";
import { run as subscribers } from "../scripts/subscribers";
import { FROM_YOUTUBE, LANDING_WITH_CAMPAIGN, YOUTUBE_LINK } from "../test/support/signup-source";
import { SIGNUP_RESULT_PAGES } from "../supabase/functions/_shared/contract/signup-result-pages";

const LANDING = LANDING_WITH_CAMPAIGN;
const SOURCE_COLUMNS = ["signup_form", "signup_page", ...Object.keys(FROM_YOUTUBE)];

describeInBrowser("where each reader came from", () => {
  const site = useSite();

  /** The address's source columns in `npm run subscribers -- export`, asked of the running stack. */
  async function exportedSource(email: string): Promise<Record<string, string>> {
    const row = exportedRow(await subscribers(["export"], { DATA_DIR: site.stack.dataDir }), email);
    return Object.fromEntries(SOURCE_COLUMNS.map((column) => [column, row[column]]));
  }

  /** From the landing page to an Effect by its links: the card's archive link, then the newest Effect's title. */
  async function toAnEffect(page: Page): Promise<string> {
    await Promise.all([
      page.waitForURL(`${site.url}/effects/`),
      page
        .getByRole("region", { name: content.newsletter.inline.title })
        .getByRole("link", { name: content.newsletter.inline.archiveLabel })
        .click(),
    ]);
    const title = page.locator("main li h2 a").first();
    const path = (await title.getAttribute("href")) ?? "";
    expect(path).toMatch(/^\/effects\/\d{4}-\d\d-\d\d\/$/);
    await Promise.all([page.waitForURL(`${site.url}${path}`), title.click()]);
    return path;
  }

  /** Subscribes with the card as the page stands, to the welcome page the plain post leads to. */
  async function postTheCard(page: Page, email: string): Promise<void> {
    const { field, button } = inlineCard(page);
    await field.fill(email);
    await Promise.all([page.waitForURL(`**${SIGNUP_RESULT_PAGES.subscribed}`), button.click()]);
    await visible(page.getByRole("heading", { level: 1, name: SPEC.inlineSuccessTitle }));
  }

  it("with JavaScript: the landing page's campaign and YouTube, and the Effect's card and page", async () => {
    const { page, functionCalls } = await site.visit(LANDING, undefined, { referer: YOUTUBE_LINK });
    expect(await page.evaluate(() => document.referrer)).toMatch(/^https:\/\/www\.youtube\.com\//);
    const path = await toAnEffect(page);
    await untilHydrated(page);
    const email = uniqueAddress("from-youtube");
    await subscribeInline(page, email);

    // Sent as JSON by the page's script, not posted as a form.
    const [call] = functionCalls("send-confirmation");
    expect(call.postDataJSON()).toEqual({ email, signup_form: "effect", signup_page: path, ...FROM_YOUTUBE });
    expect(await exportedSource(email)).toEqual({
      signup_form: "effect",
      signup_page: path,
      ...FROM_YOUTUBE,
    });
  });

  it("with Gatsby's scripts never arriving: the same, through the card's plain form post", async () => {
    const { page } = await site.visit(LANDING, undefined, {
      referer: YOUTUBE_LINK,
      untilHydrated: false,
      prepare: (context) => context.route(GATSBY_BUNDLE, (route) => route.abort()),
    });
    const path = await toAnEffect(page);
    const email = uniqueAddress("scripts-late");
    await postTheCard(page, email);
    expect(await exportedSource(email)).toEqual({
      signup_form: "effect",
      signup_page: path,
      ...FROM_YOUTUBE,
    });
  });

  it("without JavaScript: the Effect's card and page, and nothing of where the visit began", async () => {
    const { page } = await site.visit(LANDING, undefined, { javaScript: false, referer: YOUTUBE_LINK });
    const path = await toAnEffect(page);
    const email = uniqueAddress("no-js-source");
    await postTheCard(page, email);
    expect(await exportedSource(email)).toEqual({
      signup_form: "effect",
      signup_page: path,
      referrer_host: "",
      utm_source: "",
      utm_medium: "",
      utm_campaign: "",
    });
  });

  it("names the landing page's card, the dialog and the archive's card in the signups they send", async () => {
    const { page } = await site.visit("/");
    const inline = uniqueAddress("landing-card");
    await subscribeInline(page, inline);
    const { dialog, field } = await openSignupDialog(page);
    const inDialog = uniqueAddress("dialog-source");
    await field.fill(inDialog);
    await dialog.getByRole("button", { name: SPEC.joinNow }).click();
    await visible(notice(page, "success", SPEC.dialogSuccessTitle));
    const { page: archive } = await site.visit("/effects/");
    const inArchive = uniqueAddress("archive-card");
    await subscribeInline(archive, inArchive);

    const nothingElse = { referrer_host: "", utm_source: "", utm_medium: "", utm_campaign: "" };
    expect(await exportedSource(inline)).toEqual({ signup_form: "inline", signup_page: "/", ...nothingElse });
    expect(await exportedSource(inDialog)).toEqual({
      signup_form: "dialog",
      signup_page: "/",
      ...nothingElse,
    });
    expect(await exportedSource(inArchive)).toEqual({
      signup_form: "archive",
      signup_page: "/effects/",
      ...nothingElse,
    });
  });
});
