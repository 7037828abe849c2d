/** What the editor's previews need from content/, put into their bundle by build/cms-admin.ts. */
import type { EffectPages } from "../content/schema";

export interface PreviewTexts {
  siteUrl: string;
  /** content/brand.yaml's time zone: a new Effect without a day yet is previewed as today there. */
  timeZone: string;
  /** content/brand.yaml's name: the header above the mail's card. */
  brandName: string;
  effectPages: Pick<EffectPages, "name" | "mail" | "effect">;
}
