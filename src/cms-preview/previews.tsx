/**
 * The content editor's preview pane (/admin/, Decap CMS), drawn by the site's own code: an Effect
 * of the Day as its page shows it and as the mail will look, a core value and the story as on the
 * landing page, with the site's CSS (`/admin/preview.css`). build/cms-admin.ts bundles this file
 * into `/admin/previews.js`, with the texts the previews need from content/ (`__PREVIEW_TEXTS__`).
 * Decap brings its own React; the previews render to HTML with this bundle's, and hand Decap that
 * HTML, so the two never meet.
 */
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { CoreValues } from "../components/core-values";
import { EffectArticle } from "../components/effects/effect-article";
import { StorySection } from "../components/story-section";
import type { CoreValues as CoreValuesContent, Story } from "../content/schema";
import { mailEdition } from "../effects/mail";
import { UNSUBSCRIBE_PLACEHOLDER } from "../../supabase/functions/_shared/contract/published";
import { markdownProblems, markdownToHtml } from "../effects/markdown";
import { dayIn, dayLabel, isCalendarDay } from "../../supabase/functions/_shared/contract/calendar-day";
import { escapeHtml } from "../../supabase/functions/_shared/contract/escape-html";
import type { PreviewTexts } from "./preview-texts";

declare const __PREVIEW_TEXTS__: PreviewTexts;

/** The parts of Decap's API the previews use (https://decapcms.org/docs/customization/). */
interface ImmutableLike {
  toJS(): unknown;
  get(key: string): unknown;
}
interface PreviewProps {
  entry: ImmutableLike;
}
type CreateElement = (type: string, props: Record<string, unknown> | null, ...children: unknown[]) => unknown;
declare global {
  interface Window {
    CMS: {
      registerPreviewTemplate(name: string, component: unknown): void;
      registerPreviewStyle(href: string): void;
    };
    createClass(spec: { render(this: { props: PreviewProps }): unknown }): unknown;
    h: CreateElement;
  }
}

const texts = __PREVIEW_TEXTS__;

/** A label above each view, so the editor knows which is the page and which the mail. */
const heading = (text: string) =>
  `<p class="px-5 pt-6 text-xs font-semibold uppercase tracking-[0.2em] text-stone-600 sm:px-8">${text}</p>`;

const html = (element: ReactElement) => renderToStaticMarkup(element);

/** The entry's fields as plain values; a field not filled in yet is "". */
const fields = (entry: ImmutableLike): Record<string, unknown> =>
  (entry.get("data") as ImmutableLike | undefined)?.toJS() as Record<string, unknown>;
const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** An Effect's page and its mail, from what the editor has written so far. */
export function effectPreview(data: Record<string, unknown>, slug: string): { page: string; mail: string } {
  // The Day field, else the file's name, else (a new Effect with no day yet) today as the build counts it.
  const day = [text(data.date), slug].find(isCalendarDay) ?? dayIn(texts.timeZone, new Date());
  const effect = {
    date: day,
    file: `content/effects/${day}.yaml`,
    title: text(data.title),
    summary: text(data.summary),
    body: text(data.body),
  };
  const problems = markdownProblems(effect.body);
  const warning = problems.length
    ? `<div role="alert" class="mx-5 mt-4 rounded-xl bg-red-50 p-4 text-sm text-red-900 ring-1 ring-red-200 sm:mx-8"><p class="font-semibold">The site will not build with this body:</p><ul class="mt-1 list-disc pl-5">${problems
        .map((problem) => `<li>${escapeHtml(problem)}</li>`)
        .join("")}</ul></div>`
    : "";
  const page = html(
    <EffectArticle
      eyebrow={texts.effectPages.effect.eyebrow}
      effect={{
        date: effect.date,
        dateLabel: dayLabel(effect.date),
        title: effect.title,
        html: problems.length ? "" : markdownToHtml(effect.body, texts.siteUrl),
      }}
    />,
  );
  const mail = problems.length
    ? ""
    : mailEdition(effect, {
        siteUrl: texts.siteUrl,
        brandName: texts.brandName,
        texts: texts.effectPages,
      }).html.replaceAll(UNSUBSCRIBE_PLACEHOLDER, "#");
  return { page: warning + page, mail };
}

export function coreValuesPreview(data: Record<string, unknown>): string {
  const values = data as unknown as CoreValuesContent;
  return html(<CoreValues values={{ ...values, items: values.items ?? [] }} />);
}

export function storyPreview(data: Record<string, unknown>): string {
  const story = data as unknown as Story;
  const section = (part: Story["why"] | undefined) => ({
    title: part?.title ?? "",
    paragraphs: part?.paragraphs ?? [],
  });
  return (
    html(<StorySection id="my-why" story={section(story.why)} />) +
    html(<StorySection id="about" story={section(story.biography)} tone="warm" />)
  );
}

function register(): void {
  const { CMS, createClass, h } = window;
  CMS.registerPreviewStyle("/admin/preview.css");
  const htmlBlock = (markup: string) => h("div", { dangerouslySetInnerHTML: { __html: markup } });
  CMS.registerPreviewTemplate(
    "effects",
    createClass({
      render() {
        const { entry } = this.props;
        const { page, mail } = effectPreview(fields(entry), text(entry.get("slug")));
        return h(
          "div",
          null,
          htmlBlock(heading("On the site") + page),
          htmlBlock(heading("In the mail")),
          mail
            ? h("iframe", {
                title: "The Effect as the mail will look",
                srcDoc: mail,
                sandbox: "allow-same-origin",
                className: "block w-full border-0",
                style: { height: "900px" },
                onLoad: (event: { currentTarget: HTMLIFrameElement }) => {
                  const frame = event.currentTarget;
                  const body = frame.contentDocument?.body;
                  if (body) frame.style.height = `${body.scrollHeight + 16}px`;
                },
              })
            : null,
        );
      },
    }),
  );
  CMS.registerPreviewTemplate(
    "core-values",
    createClass({
      render() {
        return htmlBlock(coreValuesPreview(fields(this.props.entry)));
      },
    }),
  );
  CMS.registerPreviewTemplate(
    "story",
    createClass({
      render() {
        return htmlBlock(storyPreview(fields(this.props.entry)));
      },
    }),
  );
}

if (typeof window !== "undefined" && window.CMS) register();
