import { writeFile } from "fs/promises";
import path from "path";
import type { GatsbyNode } from "gatsby";
import { writeCmsAdmin } from "./scripts/cms-admin";
import { hostHeaders, HOST_HEADERS_FILE } from "./server/host-headers";
import { siteConnectOrigins } from "./server/security-headers";
import { checkContent, contentTypes, toTypeDefs } from "./src/content/schema";

// Explicit types for the YAML in content/: a field an editor removes or misspells must fail the
// build with its name, not render `null` (https://www.gatsbyjs.com/docs/reference/graphql-data-layer/schema-customization/).
export const createSchemaCustomization: GatsbyNode["createSchemaCustomization"] = ({ actions }) => {
  actions.createTypes(toTypeDefs());
};

const NODE_KEYS = new Set(["id", "parent", "children", "internal"]);
const SPEC_BY_TYPE = new Map(contentTypes.map((type) => [type.typeName, type]));

// Checks each content file as it is read and names the file and the field that is wrong.
export const onCreateNode: GatsbyNode["onCreateNode"] = ({ node, getNode, reporter }) => {
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
  await writeCmsAdmin("public");
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

// robots.txt points at the sitemap on the site's own address, which lives in content/brand.yaml;
// _headers gives hosts that read it the local stack's security and cache headers.
export const onPostBuild: GatsbyNode["onPostBuild"] = async ({ graphql, reporter }) => {
  const result = await graphql<{ brand: { siteUrl: string } }>(`
    query RobotsTxt {
      brand {
        siteUrl
      }
    }
  `);
  if (result.errors || !result.data) {
    reporter.panicOnBuild("Could not read the site's address for robots.txt", result.errors);
    return;
  }
  const siteUrl = result.data.brand.siteUrl.replace(/\/$/, "");
  await writeFile(
    path.join("public", "robots.txt"),
    `User-agent: *\nAllow: /\n\nSitemap: ${siteUrl}/sitemap-index.xml\n`,
  );
  await writeFile(
    path.join("public", HOST_HEADERS_FILE),
    hostHeaders("public", siteConnectOrigins(process.env)),
  );
};
