/**
 * The site's data and pages: the content types and their checks, the Effects as typed nodes
 * (src/effects/effect-nodes.ts), the pages made from queries, and after the build the files made
 * from them; the build's other jobs (bundles, the CMS, robots.txt, _headers) are one-line calls.
 */
import { mkdir, writeFile } from "fs/promises";
import path from "path";
import type { GatsbyNode, Reporter } from "gatsby";
import { compactIcons, removeBuildInternals, writeRobots } from "./scripts/built-site";
import { productionBundles } from "./scripts/bundles";
import {
  DEVELOP_SEARCH_PAGES,
  type IndexedEffect,
  writeDevelopSearchIndex,
  writeSearchIndex,
} from "./scripts/search-index";
import { serveCmsAdminPage, writeCmsAdminFor } from "./scripts/cms-admin";
import { writeHostHeaders } from "./site-headers/host-headers";
import {
  checkContent,
  contentTypes,
  toTypeDefs,
  typeNameForFile,
  type Brand,
  type EffectPages,
  type Newsletter,
} from "./src/content/schema";
import { readYaml } from "./src/content/yaml";
import {
  EFFECT_FILE_TYPE,
  EFFECTS_SOURCE,
  effectsDir,
  shownFolder,
  publicationDay,
  PUBLICATION_RECORD,
  publishedEffects,
  twoOnOneDay,
  type Effect,
  type EffectFileText,
  type PublicationRecord,
} from "./src/effects/effects";
import { EFFECT_TYPE, effectOfFile, effectResolvers, effectTypeDefs } from "./src/effects/effect-nodes";
import { writeEffectFiles } from "./src/effects/effect-files";
import { startDrawingCards, writeEffectCards } from "./src/effects/cards";
import { readTextVariable } from "./supabase/functions/_shared/contract/variables";
import { archivePath } from "./src/effects/paths";
import { dayIn } from "./supabase/functions/_shared/contract/calendar-day";
import { archivePages, effectPages, type ArchivePageContext } from "./src/effects/publication";
import {
  SIGNUP_RESULT_PAGES,
  type SignupResult,
} from "./supabase/functions/_shared/contract/signup-result-pages";

// gatsby-node.ts keeps the data and the pages; what else a build writes is a named helper, called
// in one line (the bundles, the CMS, robots.txt, _headers).

// Explicit types for the YAML in content/: a field an editor removes or misspells must fail the
// build with its name, not render `null` (https://www.gatsbyjs.com/docs/reference/graphql-data-layer/schema-customization/).
// An Effect's file becomes an `EffectFile` as read, and an `Effect` once checked (src/effects/effect-nodes.ts).
export const createSchemaCustomization: GatsbyNode["createSchemaCustomization"] = ({ actions }) => {
  actions.createTypes([toTypeDefs(), ...effectTypeDefs]);
};

export const createResolvers: GatsbyNode["createResolvers"] = ({ createResolvers: create }) => {
  create(effectResolvers);
};

export const onCreateWebpackConfig = productionBundles;

const NODE_KEYS = new Set(["id", "parent", "children", "internal"]);
const SPEC_BY_TYPE = new Map(contentTypes.map((type) => [type.typeName, type]));
const YAML_EXTENSION = /^ya?ml$/;

/** What gatsby-source-filesystem says about a file. */
interface FileNode {
  id: string;
  sourceInstanceName: string;
  relativePath: string;
  extension: string;
  name: string;
  internal: { type: string; mediaType?: string };
}

// Every file becomes data through the one YAML reader (src/content/yaml.ts): a file of content/ a
// node of its type, checked as it is read (naming the file and the field that is wrong); a file of
// the Effects' folder an EffectFile node holding its text, and that an Effect node once checked
// the same way. Under `gatsby develop` a file saved, added or removed updates its nodes, and the pages.
export const onCreateNode: GatsbyNode["onCreateNode"] = async ({
  node,
  getNode,
  reporter,
  actions,
  loadNodeContent,
  createNodeId,
  createContentDigest,
}) => {
  if (node.internal.type === EFFECT_FILE_TYPE) {
    const file = node as unknown as EffectFileText;
    const { effect, problems } = effectOfFile(file, shownFolder(effectsDir()));
    const id = effect ? createNodeId(`${EFFECT_TYPE} ${effect.date}`) : "";
    // One Effect a day: the node of a day is made once, so another file for it is the second.
    const other = effect ? getNode(id) : undefined;
    if (effect && other && other.file !== effect.file)
      problems.push(twoOnOneDay(effect.file, effect.date, String(other.file)));
    if (problems.length > 0) {
      reporter.panicOnBuild(`The Effects of the Day have problems:\n${problems.join("\n")}`);
      return;
    }
    if (!effect) return;
    const effectNode = {
      ...effect,
      id,
      parent: node.id,
      internal: { type: EFFECT_TYPE, contentDigest: createContentDigest(effect) },
    };
    actions.createNode(effectNode);
    actions.createParentChildLink({ parent: node, child: effectNode as never });
    return;
  }
  if (node.internal.type === "File") {
    const file = node as unknown as FileNode;
    if (file.sourceInstanceName === EFFECTS_SOURCE) {
      const text = YAML_EXTENSION.test(file.extension) ? await loadNodeContent(node) : undefined;
      const effectFile = {
        id: createNodeId(`EffectFile ${file.relativePath}`),
        parent: node.id,
        name: file.relativePath.split(path.sep).join("/"),
        ...(text === undefined ? {} : { text }),
        internal: { type: EFFECT_FILE_TYPE, contentDigest: createContentDigest(text ?? file.relativePath) },
      };
      actions.createNode(effectFile);
      actions.createParentChildLink({ parent: node, child: effectFile as never });
      return;
    }
    if (file.sourceInstanceName !== "content" || !YAML_EXTENSION.test(file.extension)) return;
    const where = `content/${file.relativePath}`;
    let data: unknown;
    try {
      data = readYaml(await loadNodeContent(node), where);
    } catch (error) {
      reporter.panicOnBuild(
        `${where} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`,
      );
      return;
    }
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      reporter.panicOnBuild(`${where}: must hold named fields (a YAML mapping)`);
      return;
    }
    const contentNode = {
      ...data,
      id: createNodeId(`${file.relativePath} content`),
      parent: node.id,
      internal: { type: typeNameForFile(file.name), contentDigest: createContentDigest(data) },
    };
    actions.createNode(contentNode);
    actions.createParentChildLink({ parent: node, child: contentNode as never });
    return;
  }
  const type = SPEC_BY_TYPE.get(node.internal.type);
  if (!type) return;
  const data = Object.fromEntries(Object.entries(node).filter(([key]) => !NODE_KEYS.has(key)));
  const problems = checkContent(type.fields, data);
  if (problems.length === 0) return;
  const file = node.parent ? getNode(node.parent) : undefined;
  const where =
    typeof file?.relativePath === "string" ? `content/${file.relativePath}` : `content/${type.file}.yaml`;
  reporter.panicOnBuild(`${where}: ${problems.join("; ")}`);
};

// Every content type must come from a file; a deleted file fails the build instead of a page
// quietly losing a section. The CMS goes into public/admin/ here, so `gatsby develop` serves it too.
export const onPostBootstrap: GatsbyNode["onPostBootstrap"] = async ({ getNodesByType, reporter }) => {
  for (const type of contentTypes) {
    if (getNodesByType(type.typeName).length === 0) {
      reporter.panicOnBuild(`content/${type.file}.yaml is missing or empty: the site needs it.`);
    }
  }
  const [brand] = getNodesByType("Brand") as unknown as Brand[];
  const [pageTexts] = getNodesByType("EffectPages") as unknown as EffectPages[];
  if (brand && pageTexts) await writeCmsAdminFor("public", brand, pageTexts);
};

export const onCreateDevServer = serveCmsAdminPage;

// One page per published Effect and the archive, and the signup's result pages. The Effects' pages
// query their Effect nodes, whose HTML is rendered at build time like the landing page's, so no
// Markdown code reaches the browser. Which Effects are published is decided here, each time the
// pages are made (a saved Effect shows under `gatsby develop`), and handed to every page as the
// day its queries stop at; onPostBuild reads that day back from the archive's page.
export const createPages: GatsbyNode["createPages"] = async ({ actions, reporter, graphql }) => {
  // Where send-confirmation sends a signup posted without JavaScript.
  for (const [result, pagePath] of Object.entries(SIGNUP_RESULT_PAGES)) {
    actions.createPage({
      path: pagePath,
      component: path.resolve("src/templates/signup-result.tsx"),
      context: { result: result as SignupResult },
    });
  }
  const { data, errors } = await graphql<{
    brand: Pick<Brand, "timeZone">;
    allEffect: { nodes: Pick<Effect, "date">[] };
  }>(`
    query EffectsToPublish {
      brand {
        timeZone
      }
      allEffect(sort: { date: DESC }) {
        nodes {
          date
        }
      }
    }
  `);
  if (errors || !data) {
    reporter.panicOnBuild("Could not read the Effects of the Day", errors);
    return;
  }
  const { timeZone } = data.brand;
  let today: string;
  try {
    today = publicationDay(timeZone);
  } catch (error) {
    reporter.panicOnBuild(error instanceof Error ? error.message : String(error));
    return;
  }
  const effects = data.allEffect.nodes;
  const published = publishedEffects(effects, today);
  reporter.info(
    `Effects of the Day: ${published.length} published up to ${today} (${timeZone}), ` +
      `${effects.length - published.length} scheduled for later, from ${shownFolder(effectsDir())}`,
  );
  for (const page of effectPages(published, today)) {
    actions.createPage({ ...page, component: path.resolve("src/templates/effect.tsx") });
  }
  for (const page of archivePages(published.length, today)) {
    actions.createPage({ ...page, component: path.resolve("src/templates/effect-archive.tsx") });
  }
  if (process.env.gatsby_executing_command === "develop") await indexForDevelop(graphql, reporter, today);
};

/**
 * Under `gatsby develop` the archive's search works too, over the Effects published today: the
 * build's index comes from its pages, which the development server never writes.
 */
async function indexForDevelop(
  graphql: Parameters<NonNullable<GatsbyNode["createPages"]>>[0]["graphql"],
  reporter: Reporter,
  today: string,
): Promise<void> {
  try {
    const { data, errors } = await graphql<{ allEffect: { nodes: IndexedEffect[] } }>(`
      query EffectsToSearch {
        allEffect {
          nodes {
            date
            dateLabel
            title
            html
          }
        }
      }
    `);
    if (errors || !data) throw new Error(String(errors));
    const published = publishedEffects(data.allEffect.nodes, today);
    await writeDevelopSearchIndex("public", DEVELOP_SEARCH_PAGES, published);
  } catch (error) {
    // The development site goes on with the last index (scripts/search-index.ts keeps it), and says why.
    reporter.warn(
      `The archive's search is not updated: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

// The Effects' social cards take longest of what onPostBuild writes: they are begun here, as soon
// as the pages are made, on threads of their own while Gatsby renders the pages (a build only).
export const onPreBuild: GatsbyNode["onPreBuild"] = async ({ graphql, reporter }) => {
  const { data, errors } = await graphql<
    Pick<PostBuildData, "archive" | "brand" | "effectPages"> & {
      allEffect: { nodes: Pick<Effect, "date" | "title">[] };
    }
  >(
    `
      query EffectCards($archivePath: String!) {
        brand {
          name
          siteUrl
        }
        effectPages {
          effect {
            eyebrow
          }
        }
        archive: sitePage(path: { eq: $archivePath }) {
          pageContext
        }
        allEffect {
          nodes {
            date
            title
          }
        }
      }
    `,
    { archivePath: archivePath(1) },
  );
  // onPostBuild reads the same and says what is wrong; until then, nothing to begin.
  if (errors || !data?.archive) return;
  const begun = startDrawingCards({
    published: publishedEffects(data.allEffect.nodes, data.archive.pageContext.publishedUpTo),
    brand: data.brand,
    eyebrow: data.effectPages.effect.eyebrow,
    cacheDir: readTextVariable(process.env, "EFFECT_CARDS_DIR"),
  });
  if (begun.cards > 0) {
    reporter.info(
      `Effect cards: drawing ${begun.cards} on ${begun.threads} thread(s) while the pages are built`,
    );
  }
};

interface PostBuildData {
  brand: Pick<Brand, "name" | "siteUrl" | "timeZone"> & { author: Pick<Brand["author"], "name"> };
  effectPages: Pick<EffectPages, "name" | "description" | "mail"> & {
    effect: Pick<EffectPages["effect"], "eyebrow">;
  };
  newsletter: Pick<Newsletter, "mails">;
  /** The archive's first page, absent when createPages stopped. */
  archive: { pageContext: ArchivePageContext } | null;
  allEffect: { nodes: Effect[] };
}

// The files beside the pages: robots.txt, _headers for the hosts that read it, the Effects'
// feeds, mail editions and social cards, from the Effects the pages were made of, and the archive's
// search index of their pages (so a new Effect is found without anyone doing anything).
export const onPostBuild: GatsbyNode["onPostBuild"] = async ({ graphql, reporter }) => {
  const { data, errors } = await graphql<PostBuildData>(
    `
      query PostBuildFiles($archivePath: String!) {
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
          effect {
            eyebrow
          }
          mail {
            readOnlineLabel
            shareText
            shareLinkLabel
            reasonText
            unsubscribeLabel
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
            }
          }
        }
        archive: sitePage(path: { eq: $archivePath }) {
          pageContext
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
    { archivePath: archivePath(1) },
  );
  if (errors || !data) {
    reporter.panicOnBuild(
      "Could not read the content for robots.txt, the feeds and the mail editions",
      errors,
    );
    return;
  }
  await removeBuildInternals("public");
  await writeRobots("public", data.brand.siteUrl);
  reporter.info(`Icons: ${await compactIcons("public")} bytes smaller as palette PNGs`);
  if (!data.archive) return;
  const today = data.archive.pageContext.publishedUpTo;
  const published = publishedEffects(data.allEffect.nodes, today);
  await writeEffectFiles("public", {
    published,
    brand: data.brand,
    texts: data.effectPages,
    mails: data.newsletter.mails,
    today: dayIn(data.brand.timeZone, new Date()),
  });
  const started = performance.now();
  const cacheDir = readTextVariable(process.env, "EFFECT_CARDS_DIR");
  let cards;
  try {
    cards = await writeEffectCards("public", {
      published,
      brand: data.brand,
      eyebrow: data.effectPages.effect.eyebrow,
      cacheDir,
    });
  } catch (error) {
    reporter.panicOnBuild(error instanceof Error ? error.message : String(error));
    return;
  }
  reporter.info(
    `Effect cards: ${cards.drawn} drawn, ${cards.cached} from the cache (${cacheDir}), ` +
      `in ${Math.round(performance.now() - started)} ms`,
  );
  try {
    const indexed = await writeSearchIndex("public", published.length);
    reporter.info(`Search: ${indexed} Effects indexed into public/pagefind/`);
    // Once public/ is whole: the search index's metadata file is named by its hash, and gets the
    // long cache too. Throws when the file would not fit in what Cloudflare Pages reads.
    await writeHostHeaders("public");
  } catch (error) {
    reporter.panicOnBuild(error instanceof Error ? error.message : String(error));
    return;
  }
  // Which day and which Effects this build published, so a test or `npm start` can tell a build
  // made for another day from a current one (scripts/site-build.ts).
  const record: PublicationRecord = { today, effectsDir: effectsDir() };
  await mkdir(".cache", { recursive: true });
  await writeFile(PUBLICATION_RECORD, `${JSON.stringify(record)}\n`);
};
