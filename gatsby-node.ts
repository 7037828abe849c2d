import { mkdir, readdir, rm, writeFile } from "fs/promises";
import path from "path";
import type { GatsbyNode, Reporter } from "gatsby";
import { writeCmsAdmin } from "./scripts/cms-admin";
import { hostHeaders, HOST_HEADERS_FILE } from "./site-headers/host-headers";
import { siteConnectOrigins } from "./site-headers/security-headers";
import { readBrand } from "./src/content/read-brand";
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
  checkEffectFiles,
  EFFECT_FILE_TYPE,
  EFFECTS_SOURCE,
  effectsDir,
  shownFolder,
  publicationDay,
  PUBLICATION_RECORD,
  publishedEffects,
  type Effect,
  type PublicationRecord,
} from "./src/effects/effects";
import { writeEffectFiles } from "./src/effects/effect-files";
import { dayIn } from "./supabase/functions/_shared/contract/calendar-day";
import { archivePages, effectPages } from "./src/effects/publication";
import {
  SIGNUP_RESULT_PAGES,
  type SignupResult,
} from "./supabase/functions/_shared/contract/signup-result-pages";

// Explicit types for the YAML in content/: a field an editor removes or misspells must fail the
// build with its name, not render `null` (https://www.gatsbyjs.com/docs/reference/graphql-data-layer/schema-customization/).
export const createSchemaCustomization: GatsbyNode["createSchemaCustomization"] = ({ actions }) => {
  actions.createTypes(toTypeDefs());
  // An Effect's file as read; gatsby-node.ts checks and publishes it (src/effects/effects.ts).
  actions.createTypes(`type ${EFFECT_FILE_TYPE} implements Node @dontInfer { name: String!, text: String }`);
};

// The production bundles:
// - Gatsby moves code that several pages share (here the newsletter card, the dialog and the
//   footer, used by the landing page and the Effects' pages) into a chunk of its own. A first
//   visit to the landing page then downloads two files instead of one, 1.1 KB more gzipped (npm
//   run size); with no shared chunk, each page's script carries its own copy.
// - No source maps: the site's own code is not published as readable source, and visitors never
//   download the maps anyway.
// - Gatsby's internal Partytown plugin is replaced by an empty module (src/loading/no-partytown.ts):
//   its browser hook is a no-op in production, yet it pulled `gatsby-script` (about 5 KB gzipped)
//   into the app bundle. The site has no `<Script>`; a page that adds one must remove this line.
export const onCreateWebpackConfig: GatsbyNode["onCreateWebpackConfig"] = ({
  stage,
  getConfig,
  actions,
  plugins,
}) => {
  if (stage !== "build-javascript") return;
  const config = getConfig();
  config.optimization.splitChunks.cacheGroups.shared = false;
  config.devtool = false;
  config.plugins.push(
    plugins.normalModuleReplacement(
      /internal-plugins[\\/]partytown[\\/]gatsby-browser\.js$/,
      path.resolve("src/loading/no-partytown.ts"),
    ),
  );
  actions.replaceWebpackConfig(config);
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
// the Effects' folder an EffectFile node holding its text, checked with the others when the pages
// are made. Under `gatsby develop` a file saved, added or removed updates its node, and the pages.
export const onCreateNode: GatsbyNode["onCreateNode"] = async ({
  node,
  getNode,
  reporter,
  actions,
  loadNodeContent,
  createNodeId,
  createContentDigest,
}) => {
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
  if (!brand || !pageTexts) return;
  // The preview pane's texts, from the same nodes as the pages.
  await writeCmsAdmin("public", {
    siteUrl: brand.siteUrl,
    timeZone: brand.timeZone,
    effectPages: { name: pageTexts.name, mail: pageTexts.mail, effect: pageTexts.effect },
  });
};

// `gatsby develop` (which `npm run cms` runs) serves files from public/ but answers every HTML
// request with its own pages, so the editor's page is handed out here.
export const onCreateDevServer: GatsbyNode["onCreateDevServer"] = ({ app }) => {
  app.get(
    ["/admin", "/admin/", "/admin/index.html"],
    (_request: unknown, response: { sendFile: (file: string) => void }) => {
      response.sendFile(path.resolve("public", "admin", "index.html"));
    },
  );
};

/**
 * Build internals Gatsby leaves in public/ that no page loads: webpack's stats (every module's
 * path on the build machine) and any source map. Removed after the pages are written (the HTML
 * step reads the stats), so neither the local stack nor a static host can serve them.
 */
async function removeBuildInternals(publicDir: string): Promise<void> {
  const names = await readdir(publicDir, { recursive: true });
  await Promise.all(
    names
      .filter((name) => name === "webpack.stats.json" || name.endsWith(".map"))
      .map((name) => rm(path.join(publicDir, name), { force: true })),
  );
}

interface Publication {
  published: Effect[];
  record: PublicationRecord;
}

/**
 * The Effects this build publishes, from the EffectFile nodes, or null after telling the reporter
 * what is wrong (the build then stops; `gatsby develop` shows it and carries on). Made again each
 * time the pages are made, so a saved Effect shows under `gatsby develop`; onPostBuild writes the
 * feeds and the mail editions from the same list as the pages.
 */
let publication: Publication | null = null;
function readPublication(
  reporter: Reporter,
  getNodesByType: (type: string) => Record<string, unknown>[],
): Publication | null {
  publication = null;
  const dir = effectsDir();
  const files = getNodesByType(EFFECT_FILE_TYPE).map((node) => ({
    name: String(node.name),
    text: typeof node.text === "string" ? node.text : undefined,
  }));
  const { effects, problems } = checkEffectFiles(files, shownFolder(dir));
  if (problems.length > 0) {
    reporter.panicOnBuild(`The Effects of the Day have problems:\n${problems.join("\n")}`);
    return null;
  }
  const { timeZone } = readBrand();
  let today: string;
  try {
    today = publicationDay(timeZone);
  } catch (error) {
    reporter.panicOnBuild(error instanceof Error ? error.message : String(error));
    return null;
  }
  const published = publishedEffects(effects, today);
  reporter.info(
    `Effects of the Day: ${published.length} published up to ${today} (${timeZone}), ` +
      `${effects.length - published.length} scheduled for later, from ${shownFolder(dir)}`,
  );
  publication = { published, record: { today, effectsDir: dir } };
  return publication;
}

// One page per published Effect and the archive, pre-rendered like the landing page (the pages get
// the finished HTML, so no Markdown code reaches the browser), and the signup's result pages.
export const createPages: GatsbyNode["createPages"] = ({ actions, reporter, getNodesByType }) => {
  // Where send-confirmation sends a signup posted without JavaScript.
  for (const [result, pagePath] of Object.entries(SIGNUP_RESULT_PAGES)) {
    actions.createPage({
      path: pagePath,
      component: path.resolve("src/templates/signup-result.tsx"),
      context: { result: result as SignupResult },
    });
  }
  const found = readPublication(reporter, getNodesByType);
  if (!found) return;
  const { siteUrl, timeZone } = readBrand();
  for (const page of effectPages(found.published, siteUrl, timeZone)) {
    actions.createPage({ ...page, component: path.resolve("src/templates/effect.tsx") });
  }
  for (const page of archivePages(found.published, timeZone)) {
    actions.createPage({ ...page, component: path.resolve("src/templates/effect-archive.tsx") });
  }
};

type FeedAndMailTexts = Pick<EffectPages, "name" | "description" | "mail">;

// robots.txt points at the sitemap on the site's own address, which lives in content/brand.yaml;
// _headers gives hosts that read it the local stack's security and cache headers; the Effects get
// their feeds and mail editions beside their pages.
export const onPostBuild: GatsbyNode["onPostBuild"] = async ({ graphql, reporter }) => {
  const result = await graphql<{ brand: { siteUrl: string }; effectPages: FeedAndMailTexts }>(`
    query PostBuildFiles {
      brand {
        siteUrl
      }
      effectPages {
        name
        description
        mail {
          readOnlineLabel
          reasonText
          unsubscribeLabel
        }
      }
    }
  `);
  if (result.errors || !result.data) {
    reporter.panicOnBuild(
      "Could not read the content for robots.txt, the feeds and the mail editions",
      result.errors,
    );
    return;
  }
  await removeBuildInternals("public");
  const siteUrl = result.data.brand.siteUrl.replace(/\/$/, "");
  await writeFile(
    path.join("public", "robots.txt"),
    `User-agent: *\nAllow: /\n\nSitemap: ${siteUrl}/sitemap-index.xml\n`,
  );
  await writeFile(
    path.join("public", HOST_HEADERS_FILE),
    hostHeaders("public", siteConnectOrigins(process.env)),
  );
  const found = publication;
  if (!found) return;
  const brand = readBrand();
  await writeEffectFiles("public", {
    published: found.published,
    brand,
    texts: result.data.effectPages,
    today: dayIn(brand.timeZone, new Date()),
  });
  // Which day and which Effects this build published, so a test or `npm start` can tell a build
  // made for another day from a current one (scripts/site-build.ts).
  await mkdir(".cache", { recursive: true });
  await writeFile(PUBLICATION_RECORD, `${JSON.stringify(found.record)}\n`);
};
