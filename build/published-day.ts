/**
 * The day a build published its Effects up to. createPages decides it (a saved Effect shows under
 * `gatsby develop` too) and hands it to every page; the steps after the pages read it back from
 * the archive's first page, so the files beside the pages hold the Effects the pages do.
 */
import { archivePath } from "../src/effects/paths";
import type { ArchivePageContext } from "../src/effects/publication";
import { type BuildStepArgs, query } from "./build-step";

/** The day, or null when createPages made no archive (it stopped on a mistake it reported). */
export async function publishedDay(build: BuildStepArgs): Promise<string | null> {
  const { archive } = await query<{ archive: { pageContext: ArchivePageContext } | null }>(
    build,
    "the day the pages were published up to",
    `
      query PublishedDay($archivePath: String!) {
        archive: sitePage(path: { eq: $archivePath }) {
          pageContext
        }
      }
    `,
    { archivePath: archivePath(1) },
  );
  return archive?.pageContext.publishedUpTo ?? null;
}
