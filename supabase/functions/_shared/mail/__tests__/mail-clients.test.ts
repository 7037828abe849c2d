/**
 * The four mails to a subscriber (confirmation, reminder, welcome, the Effect of the Day) and the
 * owner's weekly report as mail clients show them: rendered by real Chromium on a 375 px phone and
 * at 1280 px, nothing wider than the screen, the brand's card no wider than 600 px, the preheader
 * hidden, the button a padded cell (the report's chart as wide as the card's inside); and every
 * HTML and CSS feature they use checked against caniemail.com's data
 * (@jsx-email/doiuse-email) for Gmail, Outlook, Apple Mail and Yahoo.
 */
import AxeBuilder from "@axe-core/playwright";
import { doIUseEmail } from "@jsx-email/doiuse-email";
import type { Browser } from "playwright-core";
import { mailEdition } from "../../../../../src/effects/mail.ts";
import { htmlWithPictures } from "../../../../../server/report-mail-command.ts";
import { testBrowserAvailable, launchTestBrowser } from "../../../../../test/support/browser.ts";
import {
  MAIL_KINDS,
  type MailKind,
  sampleMails,
  SUBSCRIBER_MAIL_KINDS,
} from "../../../../../test/support/mail-samples.ts";
import { UNSUBSCRIBE_PLACEHOLDER } from "../../contract/published.ts";
import type { MailMessage } from "../mailer.ts";

let mails: Record<MailKind, MailMessage>;
beforeAll(async () => {
  mails = await sampleMails();
});
/** The HTML as a mail app shows it: its inline pictures (`cid:`) in place. */
const shown = (kind: MailKind) => htmlWithPictures(mails[kind]);
const describeInBrowser = testBrowserAvailable() ? describe : describe.skip;

/** An Effect written to break a narrow layout: a long address as a link's text, and a long title. */
const stressHtml = mailEdition(
  {
    date: "2026-11-24",
    file: "2026-11-24.yaml",
    title: "Showing up on purpose, for the people who count on you, every single day of the week",
    summary: "A long one.",
    body: [
      "Read [https://thepurposeeffect.example/effects/2026-11-24/a-very-long-address-that-goes-on-and-on?with=parameters&and=more](https://thepurposeeffect.example/).",
    ].join("\n"),
  },
  {
    siteUrl: "https://thepurposeeffect.example",
    brandName: "The Purpose Effect",
    texts: {
      name: "Effect of the Day",
      mail: {
        readOnlineLabel: "Read it on the web",
        shareText: "Know someone who needs this today? Forward this e-mail, or share {link}.",
        shareLinkLabel: "the Effect's page",
        reasonText: "You subscribed.",
        unsubscribeLabel: "Unsubscribe",
        privacyLabel: "Your data and privacy",
      },
    },
  },
).html.replaceAll(UNSUBSCRIBE_PLACEHOLDER, "https://thepurposeeffect.example/?unsubscribe=T");

describeInBrowser("the mails in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchTestBrowser();
  });
  afterAll(() => browser?.close());

  const render = async (html: string, width: number) => {
    // No JavaScript, as in a mail app.
    const context = await browser.newContext({ viewport: { width, height: 800 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.setContent(html);
    return { page, close: () => context.close() };
  };

  it.each([...MAIL_KINDS, "stress" as const])(
    "the %s mail fits a 375 px screen: nothing scrolls sideways",
    async (kind) => {
      const { page, close } = await render(kind === "stress" ? stressHtml : shown(kind), 375);
      try {
        const widths = await page.evaluate(() => ({
          document: document.documentElement.scrollWidth,
          body: document.body.scrollWidth,
        }));
        expect(widths.document).toBeLessThanOrEqual(375);
        expect(widths.body).toBeLessThanOrEqual(375);
      } finally {
        await close();
      }
    },
  );

  it.each(MAIL_KINDS)(
    "the %s mail is readable in a light and a dark mail app (axe's contrast rule)",
    async (kind) => {
      for (const colorScheme of ["light", "dark"] as const) {
        // JavaScript on only for axe: the mail has none.
        const context = await browser.newContext({ viewport: { width: 375, height: 800 }, colorScheme });
        try {
          const page = await context.newPage();
          await page.setContent(shown(kind));
          const { violations } = await new AxeBuilder({ page }).withRules(["color-contrast"]).analyze();
          expect(violations.flatMap((violation) => violation.nodes.map((node) => node.html))).toEqual([]);
        } finally {
          await context.close();
        }
      }
    },
  );

  it("the weekly report's chart is the PNG it carries, as wide as the card's inside, in the brand's card on a phone and at 1280 px", async () => {
    for (const [width, shownWidth] of [
      [375, 375 - 2 * 10 - 2 * 28],
      [1280, 544],
    ]) {
      const { page, close } = await render(shown("weekly-report"), width);
      try {
        const chart = page.getByRole("img", { name: /^Chart: the readers on the list/ });
        expect(
          await chart.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]),
        ).toEqual([544, 408]);
        expect((await chart.boundingBox())?.width).toBe(shownWidth);
        // The brand's card, its preheader hidden, as every mail of the family.
        const card = await page.locator("table.pe-card").boundingBox();
        expect(card?.width).toBe(Math.min(600, width - 20));
        expect(await page.locator("body > div").first().isVisible()).toBe(false);
      } finally {
        await close();
      }
    }
  });

  it.each(SUBSCRIBER_MAIL_KINDS)(
    "the %s mail is the brand's card at 1280 px: at most 600 px wide, its preheader hidden, its button a padded cell",
    async (kind) => {
      const { page, close } = await render(mails[kind].html, 1280);
      try {
        const card = await page.locator("table.pe-card").boundingBox();
        expect(card?.width).toBeLessThanOrEqual(600);
        expect(card?.width).toBeGreaterThan(500);
        const preheader = page.locator("body > div").first();
        expect((await preheader.textContent())?.trim()).toMatch(/^\S.{10,}[.!?]$/);
        expect(await preheader.isVisible()).toBe(false);
        // The button: the coloured cell holds the padding, and the whole of it is the link's.
        const button = page.locator("td[bgcolor] > a").last();
        const cell = await button.locator("xpath=..").evaluate((td) => {
          const style = getComputedStyle(td);
          return { padding: style.paddingTop, background: style.backgroundColor };
        });
        expect(cell).toEqual({ padding: "14px", background: "rgb(245, 158, 11)" });
      } finally {
        await close();
      }
    },
  );
});

describe("the mails against caniemail.com's data", () => {
  const CLIENTS = ["gmail.*", "outlook.*", "apple-mail.*", "yahoo.*"];
  /**
   * What caniemail lists as unsupported in one of these clients that the mails use on purpose,
   * because its absence costs nothing there; each is held to that by an assertion below.
   */
  const HARMLESS = [
    // Outlook's apps and Yahoo's drop <body> and its attributes: the mails put on it only what the
    // outer table repeats (the cream page) and a margin of 0.
    /^`<body> element` is not supported by `(outlook|yahoo)\./,
    // Windows Mail drops role="presentation": it then reads the layout table as one, in order.
    /^`role attribute` is not supported by `outlook\.windows-mail`$/,
    // The clients without @media show the light colours, which are all inline: dark mode is extra.
    /^`@media` is not supported by `(gmail\.mobile-webmail|outlook\.windows|outlook\.windows-mail)`$/,
  ];

  it.each(MAIL_KINDS)(
    "the %s mail uses nothing Gmail, Outlook, Apple Mail or Yahoo does not support",
    (kind) => {
      const { html } = mails[kind];
      const result = doIUseEmail(html, { emailClients: CLIENTS });
      const errors = result.success ? [] : result.errors;
      expect(errors.filter((error) => !HARMLESS.some((harmless) => harmless.test(error)))).toEqual([]);
      // What makes the known gaps harmless.
      expect(html).toContain('<body class="pe-page" style="margin:0;padding:0;background-color:#faf6f0;">');
      expect(html).toMatch(
        /<table class="pe-page" [^>]*bgcolor="#faf6f0" style="background-color:#faf6f0;">/,
      );
      expect(html.match(/role="[^"]*"/g)?.every((role) => role === 'role="presentation"')).toBe(true);
      expect(html.match(/@media[^{]*/g)).toEqual(["@media (prefers-color-scheme: dark) "]);
    },
  );

  it.each(MAIL_KINDS)(
    "the %s mail pads only table cells, which Outlook honours, and has a plain-text part",
    (kind) => {
      const { html, text } = mails[kind];
      expect(html).not.toMatch(/<(p|div|a|span|h[1-6]|img)\b[^>]*style="[^"]*padding/);
      expect(html).toMatch(/<td[^>]*style="padding:/);
      // The same words without the markup: the button's label and address, the unsubscribe link
      // (for the owner's report, the site's), the privacy page's.
      expect(text).toMatch(/^THE PURPOSE EFFECT\n/);
      expect(text).toMatch(
        kind === "weekly-report"
          ? /\nOpen The Purpose Effect's site: https:\/\/thepurposeeffect\.example\/\nYour data and privacy: https:\/\/thepurposeeffect\.example\/privacy\/\n$/
          : /\nUnsubscribe: https:\/\/thepurposeeffect\.example\/\?unsubscribe=u{43}\nYour data and privacy: https:\/\/thepurposeeffect\.example\/privacy\/\n$/,
      );
      expect(text).not.toMatch(/<[a-z]/);
    },
  );

  it("the weekly report's picture is the one it carries, never one loaded from the web", () => {
    const { html, inlineImages } = mails["weekly-report"];
    expect(html.match(/<img [^>]*>/g)).toEqual([
      expect.stringMatching(/^<img src="cid:weekly-chart" width="544" height="408" alt="[^"]+"/),
    ]);
    expect(inlineImages?.map((image) => image.contentId)).toEqual(["weekly-chart"]);
    expect(html).not.toMatch(/https?:\/\/[^"]*\.(png|jpe?g|gif|svg)/);
  });

  it("the checker does fail what a client lacks (a stylesheet that needs flexbox and a hidden div)", () => {
    const result = doIUseEmail('<div style="display:flex"><div style="display:none">x</div></div>', {
      emailClients: CLIENTS,
    });
    expect(result.success).toBe(false);
  });
});
