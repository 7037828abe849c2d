/**
 * The build's step for the files an Effect has besides its page (src/effects/effect-files.ts
 * writes them): the two feeds, each published Effect's mail edition, the sender's identity and the
 * newest edition's date, made from the Effects the pages were made of and the texts they need.
 */
import type { Brand, EffectPages, Newsletter } from "../src/content/schema";
import { writeEffectFiles } from "../src/effects/effect-files";
import { type Effect, publishedEffects } from "../src/effects/effects";
import { dayIn } from "../supabase/functions/_shared/contract/calendar-day";
import { type BuildStepArgs, PUBLIC_DIR, query } from "./build-step";

interface EffectFilesData {
  brand: Pick<Brand, "name" | "siteUrl" | "timeZone"> & { author: Pick<Brand["author"], "name"> };
  effectPages: Pick<EffectPages, "name" | "description" | "mail">;
  newsletter: Pick<Newsletter, "mails">;
  allEffect: { nodes: Effect[] };
}

/** The feeds and mail editions of the Effects published up to `today` (./published-day.ts). */
export async function writeFeedsAndEditions(build: BuildStepArgs, today: string): Promise<void> {
  const data = await query<EffectFilesData>(
    build,
    "the content for the feeds and the mail editions",
    `
      query EffectFiles {
        brand {
          name
          siteUrl
          timeZone
          author {
            name
          }
        }
        effectPages {
          name
          description
          mail {
            readOnlineLabel
            shareText
            shareLinkLabel
            reasonText
            unsubscribeLabel
            privacyLabel
          }
        }
        newsletter {
          mails {
            confirmation {
              subject
              preheader
              heading
              greeting
              text
              buttonLabel
              expiryText
              ignoreText
            }
            reminder {
              subject
              preheader
              heading
              greeting
              text
              buttonLabel
              expiryText
              ignoreText
            }
            welcome {
              subject
              preheader
              text
            }
            footer {
              reasonText
              unsubscribeLabel
              privacyLabel
            }
            ownerReport {
              subject
              preheader
              eyebrow
              heading
              intro
              thisWeekLabel
              weekBeforeLabel
              changeLabel
              listSizeLabel
              joinedLabel
              unsubscribedLabel
              bouncedLabel
              complainedLabel
              chartHeading
              chartAlt
              sourcesHeading
              sourceLabel
              readersLabel
              noSourcesText
              lostHeading
              lostText
              noLossText
              moreText
              reasonText
              siteLabel
            }
          }
        }
        allEffect(sort: { date: DESC }) {
          nodes {
            date
            file
            title
            summary
            body
          }
        }
      }
    `,
  );
  await writeEffectFiles(PUBLIC_DIR, {
    published: publishedEffects(data.allEffect.nodes, today),
    brand: data.brand,
    texts: data.effectPages,
    mails: data.newsletter.mails,
    today: dayIn(data.brand.timeZone, new Date()),
  });
}
