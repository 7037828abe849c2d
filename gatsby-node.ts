/**
 * The site's data and pages: the content types and their checks, the Effects as typed nodes
 * (src/effects/effect-nodes.ts) and the pages made from queries. What a build writes besides the
 * pages is a step of build/, each with its own query, called here in order.
 */
import path from "path";
import type { GatsbyNode } from "gatsby";
import { indexArchiveSearch, indexForDevelop } from "./build/archive-search";
import { BuildQueryError } from "./build/build-step";
import { settleBuiltSite } from "./build/built-site";
import { BuildDependencyReadsPlugin } from "./build/build-dependency-reads";
import { productionBundles } from "./build/bundles";
import { serveCmsAdminPage, writeCmsAdminFor } from "./build/cms-admin";
import { writeFeedsAndEditions } from "./build/feeds-and-editions";
import { writePublicationRecord } from "./build/publication-record";
import { publishedDay } from "./build/published-day";
import { beginSocialCards, writeSocialCards } from "./build/social-cards";
import { writeHostHeaders } from "./site-headers/host-headers";
import {
  checkContent,
  contentTypes,
  toTypeDefs,
  typeNameForFile,
  type Brand,
  type EffectPages,
} from "./src/content/schema";
import { readYaml } from "./src/content/yaml";
import {
  EFFECT_FILE_TYPE,
  EFFECTS_SOURCE,
  effectsDir,
  shownFolder,
  publicationDay,
  publishedEffects,
  twoOnOneDay,
  type Effect,
  type EffectFileText,
} from "./src/effects/effects";
import { EFFECT_TYPE, effectOfFile, effectResolvers, effectTypeDefs } from "./src/effects/effect-nodes";
import { archivePages, effectPages } from "./src/effects/publication";
import {
  SIGNUP_RESULT_PAGES,
  type SignupResult,
} from "./supabase/functions/_shared/contract/signup-result-pages";

// Explicit types for the YAML in content/: a field an editor removes or misspells must fail the
// build with its name, not render `null` (https://www.gatsbyjs.com/docs/reference/graphql-data-layer/schema-customization/).
// An Effect's file becomes an `EffectFile` as read, and an `Effect` once checked (src/effects/effect-nodes.ts).
export const createSchemaCustomization: GatsbyNode["createSchemaCustomization"] = ({ actions }) => {
  actions.createTypes([toTypeDefs(), ...effectTypeDefs]);
};

export const createResolvers: GatsbyNode["createResolvers"] = ({ createResolvers: create }) => {
  create(effectResolvers);
};

// Every stage: webpack's cache finds its build dependencies through the cached file system
// (build/build-dependency-reads.ts); the production stages: the bundles (build/bundles.ts).
export const onCreateWebpackConfig: GatsbyNode["onCreateWebpackConfig"] = (args) => {
  args.actions.setWebpackConfig({ plugins: [new BuildDependencyReadsPlugin()] });
  productionBundles(args);
};

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
// day its queries stop at; the steps after the pages read it back (build/published-day.ts).
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
  if (process.env.gatsby_executing_command === "develop") await indexForDevelop({ graphql, reporter }, today);
};

// The Effects' social cards take longest of what the build writes beside the pages: they are begun
// here, as soon as the pages are made, on threads of their own while Gatsby renders the pages.
export const onPreBuild: GatsbyNode["onPreBuild"] = ({ graphql, reporter, cache }) =>
  beginSocialCards({ graphql, reporter, cache });

// The files beside the pages, in order: robots.txt and the icons; then, for the Effects the pages
// were made of, their feeds and mail editions, their social cards, the archive's search index;
// _headers once public/ is whole (the index's files, named by their hash, get the long cache too;
// it throws when the file would not fit in what Cloudflare Pages reads); and what was published.
export const onPostBuild: GatsbyNode["onPostBuild"] = async ({ graphql, reporter, cache }) => {
  const build = { graphql, reporter, cache };
  try {
    await settleBuiltSite(build);
    const today = await publishedDay(build);
    if (today === null) return;
    await writeFeedsAndEditions(build, today);
    await writeSocialCards(build, today);
    await indexArchiveSearch(build, today);
    await writeHostHeaders("public");
    await writePublicationRecord(today);
  } catch (error) {
    reporter.panicOnBuild(
      error instanceof Error ? error.message : String(error),
      error instanceof BuildQueryError ? error.errors : undefined,
    );
  }
};
